/** One test per kind of validation message. */
import { describe, expect, it } from 'vitest'
import { checkScenarioValue, formatIssue, loadScenarioFile, parseScenario } from '../../src/scenario/index.js'
import { doc, invalid, onlyIssue, valid } from './helpers.js'

describe('scenario validation messages', () => {
  it('reports a bad duration with the file, path, position, expectation and finding', () => {
    const issue = onlyIssue(doc(`stages:
  - name: slow
    delay:
      after: soon
    next: offline
`))
    expect(issue.code).toBe('FSC_DURATION')
    expect(formatIssue(issue)).toBe('test.yaml:5:14 stages[0].delay.after: expected a duration like "30s", "5m" or "1h30m" (units largest first, each once), got "soon"')
  })

  it('refuses a fraction of a second where the fleet schedules a virtual time (it was rounded without a word), naming a whole one', () => {
    const issues = invalid(doc(`fleet: { ramp: { over: 0.5 } }
stages:
  - { delay: { after: 1500ms, jitter: 0.1 }, next: { action: offline, for: 2.5s } }
timeline:
  - { at: 1.5, action: offline }
  - { every: 1ms, start: 10.5s, until: 1h0.5s, spread: 500ms, action: offline }
faults:
  - { operation: agentinfo, during: { from: 0.5, until: 90.5 }, error: { rate: 0.1 } }
`))
    const whole = (got: string, write: string) => `expected whole seconds (the fleet moves in steps of one virtual second), got ${got}; write "${write}" or another whole number of seconds`
    expect(issues.map((issue) => [issue.code, issue.path, issue.message])).toEqual([
      ['FSC_DURATION', 'fleet.ramp.over', whole('0.5', '1s')],
      ['FSC_DURATION', 'stages[0].delay.after', whole('"1500ms"', '2s')],
      ['FSC_DURATION', 'stages[0].delay.jitter', whole('0.1', '1s')],
      ['FSC_DURATION', 'stages[0].next.for', whole('"2.5s"', '3s')],
      ['FSC_DURATION', 'timeline[0].at', whole('1.5', '2s')],
      ['FSC_DURATION', 'timeline[1].every', whole('"1ms"', '1s')],
      ['FSC_DURATION', 'timeline[1].start', whole('"10.5s"', '11s')],
      ['FSC_DURATION', 'timeline[1].until', whole('"1h0.5s"', '1h1s')],
      ['FSC_DURATION', 'timeline[1].spread', whole('"500ms"', '1s')],
      ['FSC_DURATION', 'faults[0].during.from', whole('0.5', '1s')],
      ['FSC_DURATION', 'faults[0].during.until', whole('90.5', '1m31s')]
    ])
  })

  it('refuses a span past 10 years where the fleet schedules a virtual time (its times are 32-bit seconds)', () => {
    const issues = invalid(
      doc(`fleet: { agents: 10, ramp: { initial: 0, over: 30000d } }
stages:
  - { delay: { after: 3651d }, next: { action: offline, for: 1e12 } }
timeline:
  - { at: 3650d, action: offline }
`)
    )
    const tooLong = (got: string) => `expected at most 3650d (10 years), the longest span the fleet schedules, got ${got}`
    expect(issues.map((issue) => [issue.code, issue.path, issue.message])).toEqual([
      ['FSC_DURATION', 'fleet.ramp.over', tooLong('"30000d"')],
      ['FSC_DURATION', 'stages[0].delay.after', tooLong('"3651d"')],
      ['FSC_DURATION', 'stages[0].next.for', tooLong('1000000000000')]
    ])
  })

  it('takes a decimal that is whole seconds (1.1h, 4.1m) where the fleet schedules a virtual time', () => {
    const result = parseScenario(
      doc(`stages:
  - { delay: { after: 4.1m }, next: { action: offline, for: 8.3m } }
timeline:
  - { every: 1.1h, action: offline }
`),
      'test.yaml'
    )
    expect(result.ok).toBe(true)
  })

  it('keeps milliseconds where they are wall-clock time (API fault latency and stall) and in drawn distributions', () => {
    const result = parseScenario(
      doc(`behaviour: { disconnect: { rate: 1/h, outage: { dist: uniform, min: 500ms, max: 2.5s } } }
faults:
  - { operation: agentinfo, latency: 250, stall: { for: 1500ms, rate: 0.1 } }
`),
      'test.yaml'
    )
    expect(result.ok).toBe(true)
  })

  it('reports an unknown key with a suggestion when one is close', () => {
    const issue = onlyIssue(doc('stgaes: []\n'))
    expect(issue.code).toBe('FSC_UNKNOWN_KEY')
    expect(issue.path).toBe('stgaes')
    expect(issue.message).toBe('unknown key "stgaes"; did you mean "stages"?')
    expect([issue.line, issue.column]).toEqual([2, 1])
  })

  it('lists the allowed keys when no unknown key is close', () => {
    const issue = onlyIssue(doc('fleet: { colour: blue }\n'))
    expect(issue.message).toMatch(/^unknown key "colour"; expected one of agents, seed, os,/)
  })

  it('reports a value outside an enumeration with a suggestion', () => {
    const issue = onlyIssue(doc('stages: [{ select: { state: ONLIN }, rate: 1/h, next: offline }]\n'))
    expect(issue.code).toBe('FSC_ENUM')
    expect(issue.path).toBe('stages[0].select.state')
    expect(issue.message).toContain('got "ONLIN"; did you mean "ONLINE"?')
  })

  it('reports an unknown action with a suggestion', () => {
    const issue = onlyIssue(doc('stages: [{ rate: 1/h, next: [{ action: ofline }] }]\n'))
    expect(issue.path).toBe('stages[0].next[0].action')
    expect(issue.message).toContain('did you mean "offline"?')
  })

  it('reports a weight that is not greater than 0', () => {
    const issue = onlyIssue(doc('stages: [{ rate: 1/h, next: [{ weight: 0, action: offline }, { weight: 1, action: error }] }]\n'))
    expect(issue.code).toBe('FSC_WEIGHT')
    expect(issue.path).toBe('stages[0].next[0].weight')
    expect(issue.message).toBe('expected a finite weight greater than 0, got 0')
  })

  it('reports a negative mix weight', () => {
    const issue = onlyIssue(doc('fleet: { os: { "RHEL 9": -1 } }\n'))
    expect(issue.code).toBe('FSC_WEIGHT')
    expect(issue.path).toBe('fleet.os["RHEL 9"]')
  })

  it('reports a fraction outside 0..1', () => {
    const issue = onlyIssue(doc('timeline: [{ at: 10m, action: offline, pick: { fraction: 1.5 } }]\n'))
    expect(issue.code).toBe('FSC_FRACTION')
    expect(issue.message).toBe('expected a fraction between 0 and 1, got 1.5')
  })

  it('reports fractions of one population that add up to more than 1', () => {
    const issue = onlyIssue(doc('fleet: { states: { UNTRUSTED: 0.7, FORGED: 0.5 } }\n'))
    expect(issue.code).toBe('FSC_SUM')
    expect(issue.message).toBe('expected fractions adding up to at most 1, got 1.2')
  })

  it('reports a missing required key', () => {
    const issue = onlyIssue('fleet: { agents: 10 }\n')
    expect(issue.code).toBe('FSC_MISSING')
    expect(issue.path).toBe('')
    expect(issue.message).toContain('missing required key "description"')
  })

  it('reports a stage with neither delay nor rate', () => {
    const issue = onlyIssue(doc('stages: [{ name: idle, next: offline }]\n'))
    expect(issue.code).toBe('FSC_MISSING')
    expect(issue.message).toBe('missing "delay" or "rate" (when the stage fires)')
  })

  it('reports keys that exclude each other', () => {
    const issue = onlyIssue(doc('stages: [{ delay: 5m, rate: 1/h, next: offline }]\n'))
    expect(issue.code).toBe('FSC_CONFLICT')
  })

  it('reports a bad rate', () => {
    const issue = onlyIssue(doc('stages: [{ rate: often, next: offline }]\n'))
    expect(issue.code).toBe('FSC_RATE')
    expect(issue.message).toBe('expected a rate like "3/h" or "0.5/m", got "often"')
  })

  it('reports the wrong type', () => {
    const issue = onlyIssue(doc('stages: { name: x }\n'))
    expect(issue.code).toBe('FSC_TYPE')
    expect(issue.message).toBe('expected a list, got a mapping')
  })

  it('reports a number out of range', () => {
    const issue = onlyIssue(doc('fleet: { agents: 2.5 }\n'))
    expect(issue.code).toBe('FSC_NUMBER')
    expect(issue.message).toBe('expected an integer from 1 to 10000000, got 2.5')
  })

  it('says of a count past what a number holds exactly that it is, not what it read', () => {
    const huge = onlyIssue(doc('reconnect: { failures: { count: 1e300 } }\n'))
    expect(huge.message).toBe('expected an integer from 1 to 2^53 - 1, got 1e+300')
    const inexact = onlyIssue(doc('reconnect: { failures: { count: 9007199254740993 } }\n'))
    expect(inexact.message).toBe('expected an integer from 1 to 2^53 - 1, got a number past 2^53, which reads only approximately (as 9007199254740992)')
    expect(onlyIssue(doc('reconnect: { failures: { count: 0 } }\n')).message).toBe('expected an integer >= 1, got 0: to fail no agent, leave the rule out')
    expect(onlyIssue(doc('timeline: [{ at: 1m, action: offline, pick: { count: 0 } }]\n')).message).toBe('expected an integer >= 1, got 0: to pick no agent, leave the rule out')
  })

  it('reports a parameter that does not belong to the action', () => {
    const issue = onlyIssue(doc('stages: [{ rate: 1/h, next: { action: offline, version: "6.5" } }]\n'))
    expect(issue.code).toBe('FSC_NOT_ALLOWED')
    expect(issue.path).toBe('stages[0].next.version')
  })

  it('reports a timeline-only action in a stage', () => {
    const issue = onlyIssue(doc('stages: [{ rate: 1/h, next: manager-restart }]\n'))
    expect(issue.code).toBe('FSC_NOT_ALLOWED')
  })

  it('reports duplicate stage names', () => {
    const issue = onlyIssue(doc('stages: [{ name: a, rate: 1/h, next: offline }, { name: a, rate: 1/h, next: error }]\n'))
    expect(issue.code).toBe('FSC_DUPLICATE')
    expect(issue.path).toBe('stages[1].name')
  })

  it('reports a module name no module set defines, with a suggestion', () => {
    const issue = onlyIssue(doc('stages: [{ rate: 1/h, next: { action: crash-module, module: out_tpc } }]\n'))
    expect(issue.code).toBe('FSC_REFERENCE')
    expect(issue.message).toBe('no module set has a module named "out_tpc"; did you mean "out_tcp"?')
  })

  it('reports a label selector that is not "name=value"', () => {
    const issue = onlyIssue(doc('stages: [{ select: { label: "=paris" }, rate: 1/h, next: offline }]\n'))
    expect(issue.code).toBe('FSC_FORMAT')
  })

  it('reports a label selector with a doubled "=" (it selected the value "=paris")', () => {
    const issue = onlyIssue(doc('stages: [{ select: { label: "site==paris" }, rate: 1/h, next: offline }]\n'))
    expect(issue.code).toBe('FSC_FORMAT')
    expect(issue.message).toBe('expected a label like "site=paris" (one "=" between name and value), got "site==paris"')
  })

  it('reports a name or description holding a control character (ESC cleared the screen of scenario list)', () => {
    const issue = onlyIssue('name: "evil\\e[2J"\ndescription: fine\n')
    expect(issue.code).toBe('FSC_FORMAT')
    expect(issue.message).toBe('expected text without control characters (a terminal obeys them, an XML answer cannot carry them), got "evil\\u001b[2J"')
    expect(onlyIssue('description: "a\\u0007bell"\n').code).toBe('FSC_FORMAT')
    expect(onlyIssue('name: "safe\\rEVIL"\ndescription: fine\n').code).toBe('FSC_FORMAT')
    // Shown escaped, C1 included: the message itself must not carry what it refuses.
    expect(onlyIssue('description: "caf\\u009b2J"\n').message).toContain('got "caf\\u009b2J"')
    expect(valid('description: "two lines\\nand a\\ttab"\n').description).toBe('two lines\nand a\ttab')
  })

  it('reports a fleet label name holding "=", which no stage could select', () => {
    const issue = onlyIssue(doc('fleet: { labels: [{ name: "site=eu", value: paris }] }\n'))
    expect(issue.code).toBe('FSC_FORMAT')
    expect(issue.path).toBe('fleet.labels[0].name')
    expect(issue.message).toBe('expected a label name without "=" (a stage selects a label as "name=value"), got "site=eu"')
  })

  it('reports a successful reconnect delay that can reach the 10 s wait', () => {
    const issue = onlyIssue(doc('reconnect: { delay: { dist: uniform, min: 1s, max: 12s } }\n'))
    expect(issue.code).toBe('FSC_NUMBER')
    expect(issue.message).toBe('expected successful reconnects to take under the 10s reconnect wait, got a maximum of 12s')
  })

  it('reports a duplicate key as invalid YAML', () => {
    const issue = onlyIssue('description: x\ndescription: y\n')
    expect(issue.code).toBe('FSC_YAML')
    expect(issue.line).toBe(2)
  })

  it('reports a line indented deeper than its siblings at that line, not at the text it continues', () => {
    const issue = onlyIssue('description: x\nfleet:\n  agents: 10\n   seed: 3\n')
    expect(issue).toMatchObject({ code: 'FSC_YAML', line: 4, column: 4 })
    expect(issue.message).toBe('invalid YAML: line 4 continues the text that starts at line 3, column 11, so it cannot hold a key: indent it as the keys beside it, or quote the text')
  })

  it('reports invalid YAML with its position', () => {
    const issue = onlyIssue('description: x\nfleet: { agents: 10\n')
    expect(issue.code).toBe('FSC_YAML')
    expect(formatIssue(issue)).toMatch(/^test\.yaml:3:1 invalid YAML: .*\}/)
  })

  it('reports a file that cannot be read', async () => {
    const result = await loadScenarioFile('/nonexistent/x.yaml')
    expect(result.ok ? null : result.issues[0].code).toBe('FSC_READ')
  })

  it('reports line and column of the offending value in nested lists', () => {
    const text = doc(`fleet:
  agents: 10
stages:
  - name: one
    rate: 1/h
    next: offline
  - name: two
    rate: 1/h
    next:
      - { weight: 2, action: offline }
      - { weight: 1, action: explode }
`)
    const issue = onlyIssue(text)
    expect(issue.path).toBe('stages[1].next[1].action')
    expect([issue.line, issue.column]).toEqual([12, 30])
  })

  it('collects every problem in one pass, in document order', () => {
    const issues = invalid(`description: many problems
fleet:
  agents: -3
  modse: { Connect: 1 }
stages:
  - delay: { after: soon }
    next: [{ weight: 0, action: offline }]
timeline:
  - at: 10m
    action: offline
    pick: { fraction: 2 }
`)
    expect(issues.map((i) => `${i.line}:${i.column} ${i.code}`)).toEqual([
      '3:11 FSC_NUMBER',
      '4:3 FSC_UNKNOWN_KEY',
      '6:21 FSC_DURATION',
      '7:22 FSC_WEIGHT',
      '11:23 FSC_FRACTION'
    ])
    expect(issues[1].message).toBe('unknown key "modse"; did you mean "modes"?')
  })

  it('reads JSON text as YAML and still reports positions', () => {
    const result = parseScenario('{"description": "x", "fleet": {"agents": "many"}}', 'admin')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(formatIssue(result.issues[0])).toBe('admin:1:42 fleet.agents: expected an integer from 1 to 10000000, got "many"')
  })

  it('reports problems in an already parsed value without positions', () => {
    const result = checkScenarioValue({ description: 'x', fleet: { agents: 0 } }, 'PUT /__admin/scenario')
    expect(result.ok ? '' : formatIssue(result.issues[0])).toBe(
      'PUT /__admin/scenario fleet.agents: expected an integer from 1 to 10000000, got 0'
    )
  })
})

describe('scenario validation messages for sections', () => {
  it('reports an empty document', () => {
    expect(onlyIssue('').message).toBe('expected a scenario mapping at the top of the document, got nothing')
  })

  it('reports a distribution without its kind, and one with a bad range', () => {
    expect(onlyIssue(doc('behaviour: { disconnect: { outage: { mean: 5m } } }\n')).message).toBe(
      'missing required key "dist" (one of fixed, uniform, normal, exponential)'
    )
    const issue = onlyIssue(doc('reconnect: { delay: { dist: uniform, min: 5s, max: 2s } }\n'))
    expect(issue.path).toBe('reconnect.delay.max')
    expect(issue.message).toBe('expected max >= min (5s), got 2s')
  })

  it('reports a parameter that does not belong to the distribution', () => {
    const issue = onlyIssue(doc('behaviour: { disconnect: { outage: { dist: exponential, mean: 5m, sd: 1m } } }\n'))
    expect(issue.code).toBe('FSC_UNKNOWN_KEY')
    expect(issue.path).toBe('behaviour.disconnect.outage.sd')
  })

  it('reports a timeline event with both "at" and "every"', () => {
    expect(onlyIssue(doc('timeline: [{ at: 1m, every: 1h, action: offline }]\n')).code).toBe('FSC_CONFLICT')
  })

  it('reports a join without a count', () => {
    const issue = onlyIssue(doc('timeline: [{ at: 1m, action: join }]\n'))
    expect(issue.message).toBe('missing required key "pick" ({count: N}, how many agents join)')
  })

  it('reports a ramp that starts with more agents than the fleet has', () => {
    const issue = onlyIssue(doc('fleet: { agents: 10, ramp: { over: 5m, initial: 20 } }\n'))
    expect(issue.message).toBe('expected at most fleet.agents (10), got 20')
  })

  it('reports a reconnect failure rule with two modes', () => {
    const issue = onlyIssue(doc('reconnect: { failures: [{ count: 10, probability: 0.1 }] }\n'))
    expect(issue.code).toBe('FSC_CONFLICT')
    expect(issue.path).toBe('reconnect.failures[0]')
  })

  it('reports an unknown API operation with a suggestion', () => {
    const issue = onlyIssue(doc('faults: [{ operation: agentinfos, reset: { rate: 0.1 } }]\n'))
    expect(issue.code).toBe('FSC_ENUM')
    expect(issue.message).toContain('did you mean "agentinfo"?')
  })

  it('reports a fault rule without a fault', () => {
    expect(onlyIssue(doc('faults: [{ operation: "*" }]\n')).message).toBe(
      'missing a fault: one or more of latency, error, reset, stall, failFirst, body'
    )
  })

  it('reports label rules of one name that add up to more than 1', () => {
    const issue = onlyIssue(doc('fleet: { labels: [{ name: site, value: a, fraction: 0.6 }, { name: site, value: b, fraction: 0.6 }] }\n'))
    expect(issue.code).toBe('FSC_SUM')
  })

  it('reports a state selector in a fleet label rule', () => {
    const issue = onlyIssue(doc('fleet: { labels: [{ name: x, value: y, select: { state: ONLINE } }] }\n'))
    expect(issue.code).toBe('FSC_UNKNOWN_KEY')
    expect(issue.path).toBe('fleet.labels[0].select.state')
  })

  it('reports a number where a version string belongs', () => {
    const issue = onlyIssue(doc('stages: [{ rate: 1/h, next: { action: upgrade, version: 6.5 } }]\n'))
    expect(issue.message).toBe('expected a string, got 6.5; quote it: "6.5"')
  })
})
