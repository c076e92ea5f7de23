import { describe, expect, it } from 'vitest'
import { DEFAULTS, type Scenario } from '../../src/scenario/index.js'
import { doc, valid } from './helpers.js'

describe('scenario normalisation', () => {
  it('fills every default into a scenario that gives only a description', () => {
    const s = valid('description: nothing else\n')
    expect(s).toEqual({
      name: 'test',
      description: 'nothing else',
      source: 'test.yaml',
      fleet: DEFAULTS.fleet,
      behaviour: DEFAULTS.behaviour,
      stages: [],
      timeline: [],
      reconnect: { delay: DEFAULTS.reconnectDelay, failures: [] },
      faults: []
    } satisfies Scenario)
  })

  it('freezes the normalised scenario', () => {
    const s = valid(doc('stages: [{ rate: 1/h, next: offline }]\n'))
    expect(Object.isFrozen(s)).toBe(true)
    expect(Object.isFrozen(s.stages[0].select)).toBe(true)
  })

  it('turns durations into virtual seconds and rates into events per second', () => {
    const s = valid(doc(`stages:
  - delay: { after: 1h30m, jitter: 30000ms }
    next: { action: offline, for: 2d }
  - rate: 3/h
    next: error
timeline:
  - every: 90
    start: 5m
    until: 1d
    action: restart-modules
    spread: 10m
`))
    expect(s.stages[0].trigger).toEqual({ kind: 'delay', after: 5400, jitter: 30 })
    expect(s.stages[0].next).toEqual([{ action: { type: 'offline' }, for: 172800, probability: 1 }])
    expect(s.stages[1].trigger).toEqual({ kind: 'rate', rate: 3 / 3600 })
    expect(s.timeline[0].schedule).toEqual({ kind: 'every', every: 90, start: 300, until: 86400, times: null })
    expect(s.timeline[0].spread).toBe(600)
  })

  it('fills stage defaults: a generated name, any agent, all of them, unlimited firings', () => {
    const s = valid(doc('stages: [{ delay: 5m, next: offline }]\n'))
    expect(s.stages[0]).toEqual({
      name: 'stage-1',
      select: { states: null, labels: null, templates: null, versions: null, os: null, names: null, modes: null },
      pick: { kind: 'all' },
      trigger: { kind: 'delay', after: 300, jitter: 0 },
      next: [{ action: { type: 'offline' }, for: null, probability: 1 }],
      times: null
    })
  })

  it('normalises selectors to lists of alternatives', () => {
    const s = valid(doc(`stages:
  - select: { state: ONLINE, label: ["site=paris", "canary"], os: "Windows*", mode: [Connect, Listen] }
    pick: one
    rate: 1/h
    next: offline
`))
    expect(s.stages[0].select).toEqual({
      states: ['ONLINE'],
      labels: [
        { name: 'site', value: 'paris' },
        { name: 'canary', value: null }
      ],
      templates: null,
      versions: null,
      os: ['Windows*'],
      names: null,
      modes: ['Connect', 'Listen']
    })
    expect(s.stages[0].pick).toEqual({ kind: 'count', count: 1 })
  })

  it('turns weights into probabilities', () => {
    const s = valid(doc(`fleet:
  os: { "Ubuntu 22.04": 3, "RHEL 9": 1 }
stages:
  - rate: 1/h
    next:
      - { weight: 3, action: offline, for: 1m }
      - { action: crash-module }
`))
    expect(s.fleet.os).toEqual([
      { value: 'Ubuntu 22.04', probability: 0.75 },
      { value: 'RHEL 9', probability: 0.25 }
    ])
    expect(s.stages[0].next.map((n) => n.probability)).toEqual([0.75, 0.25])
    expect(s.stages[0].next[1].action).toEqual({ type: 'crash-module', module: null, kind: null })
  })

  it('gives ONLINE the initial states the file leaves over', () => {
    const s = valid(doc('fleet: { states: { UNTRUSTED: 0.02, FORGED: 0.01 } }\n'))
    expect(s.fleet.states.map((x) => [x.value, Number(x.probability.toFixed(6))])).toEqual([
      ['ONLINE', 0.97],
      ['UNTRUSTED', 0.02],
      ['FORGED', 0.01]
    ])
  })

  it('infers module types from nxlog kinds', () => {
    const s = valid(doc(`fleet:
  moduleSets:
    - name: files
      modules:
        - { name: in, kind: im_file }
        - { name: out, kind: om_http }
        - { name: conv, kind: xm_json, type: INPUT }
`))
    expect(s.fleet.moduleSets[0].value.modules.map((m) => m.type)).toEqual(['INPUT', 'OUTPUT', 'INPUT'])
  })

  it('normalises a one-shot timeline event, a join, and a manager restart', () => {
    const s = valid(doc(`timeline:
  - { at: 10m, select: { state: ONLINE }, pick: { fraction: 0.3 }, action: offline, for: 5m }
  - { at: 1h, action: join, pick: { count: 50 }, spread: 10m }
  - { at: 2h, action: manager-restart }
`))
    expect(s.timeline[0]).toMatchObject({ name: 'offline-1', schedule: { kind: 'once', at: 600 }, pick: { kind: 'fraction', fraction: 0.3 }, for: 300, spread: 0 })
    expect(s.timeline[1]).toMatchObject({ name: 'join-2', action: { type: 'join' }, pick: { kind: 'count', count: 50 }, spread: 600 })
    expect(s.timeline[2]).toMatchObject({ name: 'manager-restart-3', action: { type: 'manager-restart' }, for: null })
  })

  it('normalises reconnect failures and their defaults', () => {
    const s = valid(doc('reconnect: { failures: { select: { os: "RHEL*" }, count: 10 } }\n'))
    expect(s.reconnect.delay).toEqual(DEFAULTS.reconnectDelay)
    expect(s.reconnect.failures[0]).toMatchObject({
      mode: { kind: 'count', count: 10 },
      operations: ['assigntemplatetoagent', 'updateandreloadagent'],
      recoverAfter: null
    })
    expect(s.reconnect.failures[0].select.os).toEqual(['RHEL*'])
  })

  it('normalises API faults: latency in milliseconds, operations, defaults', () => {
    const s = valid(doc(`faults:
  - operation: agentinfo
    latency: { dist: normal, mean: 300, sd: 50 }
    stall: { for: 2s, rate: 0.1 }
    failFirst: 2
  - operation: "*"
    latency: 1.5s
    error: { rate: 0.5 }
`))
    expect(s.faults[0]).toEqual({
      name: 'fault-1',
      operations: ['agentinfo'],
      during: null,
      latencyMs: { kind: 'normal', mean: 300, sd: 50, max: null },
      error: null,
      reset: null,
      stall: { forMs: 2000, rate: 0.1 },
      failFirst: { count: 2, status: DEFAULTS.faultStatus, message: DEFAULTS.faultMessage },
      body: null
    })
    expect(s.faults[1].operations).toBeNull()
    expect(s.faults[1].latencyMs).toEqual({ kind: 'fixed', value: 1500 })
    expect(s.faults[1].error).toEqual({ status: 500, rate: 0.5, message: DEFAULTS.faultMessage })
  })

  it('turns background churn off', () => {
    const s = valid(doc('behaviour: { disconnect: off }\n'))
    expect(s.behaviour.disconnect.rate).toBe(0)
    expect(s.behaviour.moduleCrash).toEqual(DEFAULTS.behaviour.moduleCrash)
    expect(valid(doc('behaviour: off\n')).behaviour.moduleCrash.rate).toBe(0)
  })

  it('normalises weights near the largest number without overflowing (1e308 twice gave 0 and 0)', () => {
    const s = valid(doc(`fleet:
  os: { "Ubuntu 22.04": 1e308, "RHEL 9": 1e308 }
stages:
  - rate: 1/h
    next:
      - { weight: 1.5e308, action: offline, for: 1m }
      - { weight: 0.5e308, action: crash-module }
`))
    expect(s.fleet.os.map((x) => x.probability)).toEqual([0.5, 0.5])
    expect(s.stages[0].next.map((n) => n.probability)).toEqual([0.75, 0.25])
  })

  it('takes the scenario name from the file unless the file names it', () => {
    expect(valid(doc('name: custom\n')).name).toBe('custom')
    expect(valid(doc('')).name).toBe('test')
  })
})
