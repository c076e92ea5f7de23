import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERRORS, apiError, shown } from '../../src/protocol/errors.js'

const protocol = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8')

describe('the error catalogue', () => {
  it('documents every code with its HTTP status in docs/protocol.md', () => {
    for (const [code, { status }] of Object.entries(ERRORS)) {
      expect(protocol, code).toContain(`| \`${code}\` | ${status} |`)
    }
  })

  it('documents no code that the catalogue lacks', () => {
    const documented = [...protocol.matchAll(/^\| `(E_[A-Z_]+)` \|/gm)].map((m) => m[1])
    expect(documented.sort()).toEqual(Object.keys(ERRORS).sort())
  })

  it('uses 4xx statuses for every error a request can cause', () => {
    // Not caused by the request: a scenario's fault rule answers with E_FAULT_INJECTED,
    // E_TOO_MANY_CONNECTIONS says the server is full (--max-connections), E_UNREAD_ANSWERS that
    // its memory for unread answers is (--unsent-answers-max-bytes), and E_STATE_SAVE_FAILED
    // that the disk refused a save, E_FLEET_RESET that the fleet was reset while a list was made.
    // E_HTTP_VERSION is caused by the request, but HTTP gives it its own 5xx (505 HTTP Version Not Supported).
    const serverSide = new Set(['E_INTERNAL', 'E_FAULT_INJECTED', 'E_TOO_MANY_CONNECTIONS', 'E_UNREAD_ANSWERS', 'E_STATE_SAVE_FAILED', 'E_FLEET_RESET', 'E_HTTP_VERSION'])
    for (const [code, { status }] of Object.entries(ERRORS)) {
      if (!serverSide.has(code)) expect(status, code).toBeGreaterThanOrEqual(400)
      if (!serverSide.has(code)) expect(status, code).toBeLessThan(500)
    }
  })

  it('names at most ten values a client sent, each cut at 200 characters, and counts the rest', () => {
    const names = Array.from({ length: 90_000 }, (_, k) => `agent-${k}`)
    const message = apiError('E_UNKNOWN_AGENT', { by: 'name', values: names }).message
    expect(message).toBe(`No agent with name ${names.slice(0, 10).map((n) => JSON.stringify(n)).join(', ')} and 89990 more: check the value with agentinfo.`)
    const long = apiError('E_UNKNOWN_AGENT', { by: 'name', values: ['x'.repeat(5000)] }).message
    expect(long).toBe(`No agent with name "${'x'.repeat(199)}…: check the value with agentinfo.`)
    expect(apiError('E_UNKNOWN_AGENT', { by: 'UUID', values: ['a', 'b'] }).message).toBe('No agent with UUID "a", "b": check the value with agentinfo.')
    // Each once, however often the request repeated it.
    expect(apiError('E_UNKNOWN_LABEL', { names: ['rack', 'rack', 'row', 'rack'] }).message).toBe('No custom label named "rack", "row": create it with setcustomlabel first.')
  })

  it('cuts one value a client sent at 200 characters: a header, a path, a name, a body field', () => {
    const huge = 'x'.repeat(60_000)
    const messages = [
      apiError('E_NOT_ACCEPTABLE', { accept: huge }).message,
      apiError('E_UNSUPPORTED_MEDIA_TYPE', { contentType: huge }).message,
      apiError('E_SCENARIO_MEDIA_TYPE', { contentType: huge, what: 'scenario' }).message,
      apiError('E_UNKNOWN_NAME', { name: huge }).message,
      apiError('E_INVALID_VALUE', { where: 'body field', name: 'speed', rule: 'must be a number', got: shown(huge) }).message
    ]
    for (const message of messages) {
      expect(message.length).toBeLessThan(500)
      expect(message).toContain(`"${'x'.repeat(199)}…`)
    }
  })

  it('names every value of its own, however many: the library, the allowed values', () => {
    const names = Array.from({ length: 12 }, (_, k) => `scenario-${k}`)
    const message = apiError('E_UNKNOWN_SCENARIO', { name: 'x', names }).message
    for (const name of names) expect(message).toContain(JSON.stringify(name))
    expect(message).not.toContain('more')
  })
})
