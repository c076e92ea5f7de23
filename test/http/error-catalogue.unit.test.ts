import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERRORS } from '../../src/protocol/errors.js'

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
    // E_TOO_MANY_CONNECTIONS says the server is full (--max-connections), and
    // E_STATE_SAVE_FAILED that the disk refused a save. E_HTTP_VERSION is caused by the
    // request, but HTTP gives it its own 5xx (505 HTTP Version Not Supported).
    const serverSide = new Set(['E_INTERNAL', 'E_FAULT_INJECTED', 'E_TOO_MANY_CONNECTIONS', 'E_STATE_SAVE_FAILED', 'E_HTTP_VERSION'])
    for (const [code, { status }] of Object.entries(ERRORS)) {
      if (!serverSide.has(code)) expect(status, code).toBeGreaterThanOrEqual(400)
      if (!serverSide.has(code)) expect(status, code).toBeLessThan(500)
    }
  })
})
