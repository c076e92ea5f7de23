import { describe, expect, it } from 'vitest'
import { createAuthCheck } from '../../src/protocol/auth.js'

const check = createAuthCheck({ user: 'admin', password: 'secret' })

describe('the credential check', () => {
  it('accepts the configured user and password', () => {
    expect(check({ rest_user: 'admin', rest_password: 'secret' })).toBe(true)
  })

  it('refuses a wrong password', () => {
    expect(check({ rest_user: 'admin', rest_password: 'secreT' })).toBe(false)
  })

  it('refuses missing headers, even when the configured password is empty', () => {
    expect(createAuthCheck({ user: '', password: '' })({})).toBe(false)
  })

  it('remembers a pair that passed, and still refuses near misses after it', () => {
    const remembering = createAuthCheck({ user: 'admin', password: 'secret' })
    expect(remembering({ rest_user: 'admin', rest_password: 'secret' })).toBe(true)
    expect(remembering({ rest_user: 'admin', rest_password: 'secret' })).toBe(true)
    expect(remembering({ rest_user: 'admin', rest_password: 'secre' })).toBe(false)
    expect(remembering({ rest_user: 'admin2', rest_password: 'secret' })).toBe(false)
    expect(remembering({ rest_user: 'admin' })).toBe(false)
  })

  it('matches a configured value beyond ASCII with the UTF-8 a client sends for it, as Node hands the header over (a character per byte)', () => {
    const unicode = createAuthCheck({ user: 'üser', password: 'pässwörd€' })
    const received = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
    expect(unicode({ rest_user: received('üser'), rest_password: received('pässwörd€') })).toBe(true)
    // The same characters as single bytes (Latin-1) are other bytes: refused.
    expect(unicode({ rest_user: 'üser', rest_password: received('pässwörd€') })).toBe(false)
    expect(unicode({ rest_user: received('üser'), rest_password: received('pässwörd') })).toBe(false)
  })
})
