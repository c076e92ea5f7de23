/**
 * Operations that name an agent, template or label refuse names that the comma-delimited list
 * parameters addressing them could not carry (src/http/names.ts), in JSON and in XML bodies;
 * ordinary names, non-ASCII ones included, still work and are found by agentinfo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentBody, CA, call, harness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(10)
})
afterAll(() => h.close())

const XML_HEADERS = { 'content-type': 'application/xml' }

/**
 * A body object as XML, every character of text outside [A-Za-z0-9] written as a numeric
 * character reference: the XML reader trims element text, so a leading or trailing space
 * survives only that way, and control characters reach the name only so (XML allows no NUL or lone surrogate even so).
 */
function xmlBody(root: string, value: Record<string, unknown>): string {
  const text = (s: string) => Array.from(s, (c) => (/[A-Za-z0-9]/.test(c) ? c : `&#x${(c.codePointAt(0) as number).toString(16)};`)).join('')
  const element = (key: string, item: unknown): string =>
    item !== null && typeof item === 'object'
      ? `<${key}>${Object.entries(item).map(([k, v]) => element(k, v)).join('')}</${key}>`
      : `<${key}>${text(String(item))}</${key}>`
  return `<?xml version="1.0" encoding="UTF-8"?>${element(root, value)}`
}

const master = (name: string) => ({ name, description: 'd', 'global-config': { address: '10.0.0.1', port: 4041, 'ca-fingerprint': CA.fingerprint } })

type Format = 'JSON' | 'XML'
const send = (method: 'POST' | 'PUT', path: string, root: string, body: Record<string, unknown>, format: Format) =>
  format === 'JSON' ? call(h.app, method, path, body) : call(h.app, method, path, xmlBody(root, body), XML_HEADERS)

/** One case per rule: the name, and what the message says about it. */
const RULES: Array<{ rule: string; name: string; problem: string; reason: RegExp }> = [
  { rule: 'a comma', name: 'web,01', problem: 'has a comma (U+002C) at position 4', reason: /takes? (a )?comma-separated lists?, so .*; choose a name without commas\.$/ },
  { rule: 'a leading space', name: ' web01', problem: 'starts with a space (U+0020) at position 1', reason: /trims? the whitespace around each item .*; remove the leading whitespace\.$/ },
  { rule: 'a trailing space', name: 'web01 ', problem: 'ends with a space (U+0020) at position 6', reason: /trims? the whitespace around each item .*; remove the trailing whitespace\.$/ },
  { rule: 'a trailing no-break space', name: 'web01\u00a0', problem: 'ends with a no-break space (U+00A0) at position 6', reason: /remove the trailing whitespace\.$/ },
  { rule: 'a tab', name: 'web\t01', problem: 'has a tab (U+0009) at position 4', reason: /^control characters .*; remove the control character\.$/ },
  { rule: 'a line feed', name: 'web\n01', problem: 'has a line feed (U+000A) at position 4', reason: /; remove the control character\.$/ },
  { rule: 'a NUL', name: 'web\u000001', problem: 'has a NUL character (U+0000) at position 4', reason: /a NUL comes back as U\+FFFD.*; remove the control character\.$/ },
  { rule: 'a DEL', name: 'web\u007f01', problem: 'has a DEL character (U+007F) at position 4', reason: /; remove the control character\.$/ },
  { rule: 'a C1 control', name: 'web\u009b01', problem: 'has a C1 control character (U+009B) at position 4', reason: /; remove the control character\.$/ },
  { rule: 'a U+FFFF', name: 'web\uffff01', problem: 'has a noncharacter (U+FFFF) at position 4', reason: /^XML allows neither U\+FFFE nor U\+FFFF, and an XML answer shows U\+FFFD .*; remove the character\.$/ },
  { rule: 'a U+FFFE', name: 'web\ufffe', problem: 'has a noncharacter (U+FFFE) at position 4', reason: /; remove the character\.$/ },
  { rule: 'a lone surrogate', name: 'web\ud80001', problem: 'has a lone high surrogate (U+D800) at position 4', reason: /surrogate pair is not a character.*; fix the encoding of the name\.$/ },
  { rule: 'nothing (the empty name)', name: '', problem: 'is empty', reason: /drops? empty items .*; give a name of at least one character\.$/ }
]

const shown = (name: string) => JSON.stringify(name)

/** Characters XML cannot carry, even as references: such a body is malformed XML before any name is read. */
const NOT_IN_XML = new Set(['a NUL', 'a lone surrogate', 'a U+FFFF', 'a U+FFFE'])

describe.each<Format>(['JSON', 'XML'])('names in %s bodies', (format) => {
  describe.each(RULES.filter(({ rule }) => format === 'JSON' || !NOT_IN_XML.has(rule)))('a name with $rule', ({ name, problem, reason }) => {
    it('is refused by addagent, which adds no agent', async () => {
      const before = h.fleet.size()
      const response = await send('POST', 'addagent', 'agent', agentBody(name), format)
      expect(response.statusCode).toBe(400)
      const [error] = response.json().errors
      expect(error.code).toBe('E_INVALID_NAME')
      expect(error.message.startsWith(`The agent name ${shown(name)} ${problem}: `)).toBe(true)
      expect(error.message).toMatch(/agentinfo\?agentname=|control characters|surrogate|XML allows/)
      expect(error.message.slice(error.message.indexOf(': ') + 2)).toMatch(reason)
      expect(h.fleet.size()).toBe(before)
    })

    it('is refused by modifyagent, which leaves the agent as it was', async () => {
      const current = h.fleet.name(1)
      const response = await send('PUT', `modifyagent?agentName=${current}`, 'agent', agentBody(name), format)
      expect(response.statusCode).toBe(400)
      expect(response.json().errors[0]).toMatchObject({ code: 'E_INVALID_NAME', message: expect.stringContaining(`The agent name ${shown(name)} ${problem}: `) })
      expect(h.fleet.findByName(current)).toBe(1)
    })

    it('is refused by addmastertemplate, which creates no template', async () => {
      const response = await send('POST', 'addmastertemplate', 'masterTemplate', master(name), format)
      expect(response.statusCode).toBe(400)
      expect(response.json().errors[0]).toMatchObject({ code: 'E_INVALID_NAME', message: expect.stringContaining(`The master template name ${shown(name)} ${problem}: `) })
      expect(await viewStatus(name)).not.toBe(200)
    })
  })
})

describe.each(RULES.filter(({ rule }) => NOT_IN_XML.has(rule)))('a name with $rule in an XML body', ({ name }) => {
  it('is malformed XML, naming the reference, and adds nothing', async () => {
    const before = h.fleet.size()
    const response = await send('POST', 'addagent', 'agent', agentBody(name), 'XML')
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MALFORMED_XML', message: expect.stringContaining('refers to a character XML does not allow') })
    expect(h.fleet.size()).toBe(before)
  })
})

/** The status of viewagentortemplate for a name; 404 for one no URL can carry (it exists nowhere). */
async function viewStatus(name: string): Promise<number> {
  let query: string
  try {
    query = encodeURIComponent(name)
  } catch {
    return 404 // a lone surrogate: no URL can name it
  }
  return (await call(h.app, 'GET', `viewagentortemplate?name=${query}`)).statusCode
}

describe('every operation that names something new applies the rule', () => {
  it('addsubtemplate says a sub template with a comma could never be assigned', async () => {
    const response = await call(h.app, 'POST', 'addsubtemplate', { name: 'extra,1' })
    expect(response.json().errors[0]).toMatchObject({
      code: 'E_INVALID_NAME',
      message:
        'The sub template name "extra,1" has a comma (U+002C) at position 6: assigntemplatetoagent?subTemplateNames= takes a comma-separated list, so this sub template could never be assigned; choose a name without commas.'
    })
  })

  it('modifysubtemplate refuses the new name and keeps the old one', async () => {
    expect((await call(h.app, 'POST', 'addsubtemplate', { name: 'sub-keep' })).statusCode).toBe(200)
    const response = await call(h.app, 'PUT', 'modifysubtemplate?subTemplateName=sub-keep', { name: 'sub-keep ' })
    expect(response.json().errors[0].code).toBe('E_INVALID_NAME')
    expect((await call(h.app, 'GET', 'viewagentortemplate?name=sub-keep')).statusCode).toBe(200)
  })

  it('modifymastertemplate refuses the new name and keeps the old one', async () => {
    expect((await call(h.app, 'POST', 'addmastertemplate', master('master-keep'))).statusCode).toBe(200)
    const response = await send('PUT', 'modifymastertemplate?masterTemplateName=master-keep', 'masterTemplate', master('master\u007fkeep'), 'XML')
    expect(response.json().errors[0].code).toBe('E_INVALID_NAME')
    expect((await call(h.app, 'GET', 'viewagentortemplate?name=master-keep')).statusCode).toBe(200)
  })

  it('setcustomlabel says a label with a comma could never be removed', async () => {
    const response = await call(h.app, 'POST', 'setcustomlabel', { name: 'rack,7', value: 'v' })
    expect(response.json().errors[0]).toMatchObject({
      code: 'E_INVALID_NAME',
      message:
        'The custom label name "rack,7" has a comma (U+002C) at position 5: removecustomlabel?labelNames= takes a comma-separated list, so this label could never be removed; choose a name without commas.'
    })
  })

  it('setcustomlabel refuses a rename to a name with a trailing space', async () => {
    expect((await call(h.app, 'POST', 'setcustomlabel', { name: 'rack', value: 'v' })).statusCode).toBe(200)
    const response = await call(h.app, 'POST', 'setcustomlabel?oldName=rack', { name: 'rack ', value: 'v' })
    expect(response.json().errors[0].code).toBe('E_INVALID_NAME')
    expect((await call(h.app, 'POST', 'removecustomlabel?labelNames=rack')).statusCode).toBe(200)
  })

  it('addagent refuses a certificate name the rule refuses when the body has no name', async () => {
    // Only a name set outside the REST operations (here directly on the fleet) can break the rule.
    const index = 4
    await h.fleet.modifyAgent(index, 'legacy,name', h.fleet.config(index))
    const fingerprint = h.fleet.config(index).certFingerprint
    expect((await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.fleet.uuid(index)}&revokeCert=false`)).statusCode).toBe(200)
    const body = agentBody('x', { 'cert-fingerprint': fingerprint }) as Record<string, unknown>
    delete body.name
    const response = await call(h.app, 'POST', 'addagent', body)
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_INVALID_NAME', message: expect.stringContaining('The agent name "legacy,name" has a comma') })
    expect(h.fleet.findByName('legacy,name')).toBeUndefined()
  })

  it('reports the body’s other problems after the name', async () => {
    const response = await call(h.app, 'POST', 'addagent', { name: 'a,b' })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors.map((e: { code: string }) => e.code)).toEqual(['E_INVALID_NAME', 'E_MISSING_FIELD'])
  })

  it('still reports a name of the wrong type as a wrong type', async () => {
    const response = await call(h.app, 'POST', 'addagent', { ...agentBody('x'), name: 7 })
    expect(response.json().errors).toEqual([expect.objectContaining({ code: 'E_WRONG_TYPE' })])
  })
})

describe('ordinary names', () => {
  const ORDINARY = ['café-01', 'web 01.lon_2', 'Zürich Ost', '東京-01', 'rocket-🚀', 'a']

  it.each<Format>(['JSON', 'XML'])('with inner spaces, dots, dashes, underscores and non-ASCII letters are added from %s and found by agentinfo?agentname=', async (format) => {
    const names = ORDINARY.map((name) => `${name}-${format}`)
    for (const name of names) {
      const response = await send('POST', 'addagent', 'agent', agentBody(name), format)
      expect(response.statusCode, name).toBe(200)
    }
    const response = await call(h.app, 'GET', `agentinfo?agentname=${names.map(encodeURIComponent).join(',')}`)
    expect(response.statusCode).toBe(200)
    expect(response.json().values.map((v: { content: { name: string } }) => v.content.name)).toEqual(names)
  })

  it('are kept as templates and labels too', async () => {
    expect((await call(h.app, 'POST', 'addmastertemplate', master('café master'))).statusCode).toBe(200)
    expect((await call(h.app, 'POST', 'addsubtemplate', { name: 'sub_1.x' })).statusCode).toBe(200)
    expect((await call(h.app, 'POST', 'setcustomlabel', { name: 'Größe', value: 'v' })).statusCode).toBe(200)
  })
})
