/** The console's sessions: random tokens, a fixed lifetime, a bounded number. */
import { describe, expect, it } from 'vitest'
import { MAX_SESSIONS, SessionStore } from '../../src/console/session.js'
import { basicCredentials, credentialsMatch, readCookie } from '../../src/console/auth.js'
import { createAuthCheck } from '../../src/protocol/auth.js'

describe('console sessions', () => {
  it('hands out a different 256-bit token at every login', () => {
    const store = new SessionStore()
    const a = store.create('admin').token
    const b = store.create('admin').token
    expect(a).not.toBe(b)
    expect(Buffer.from(a, 'base64url')).toHaveLength(32)
  })

  it('forgets a session once its time is up', () => {
    let now = 0
    const store = new SessionStore(1000, () => now)
    const { token } = store.create('admin')
    now = 999
    expect(store.get(token)?.user).toBe('admin')
    now = 1000
    expect(store.get(token)).toBeUndefined()
    expect(store.size).toBe(0)
  })

  it('keeps at most MAX_SESSIONS, dropping the oldest', () => {
    const store = new SessionStore()
    const first = store.create('admin').token
    for (let k = 0; k < MAX_SESSIONS; k++) store.create('admin')
    expect(store.size).toBe(MAX_SESSIONS)
    expect(store.get(first)).toBeUndefined()
  })
})

describe('reading credentials', () => {
  it('finds one cookie among several', () => {
    expect(readCookie('a=1; fleetsim_console=abc; b=2', 'fleetsim_console')).toBe('abc')
    expect(readCookie('fleetsim_consoleX=abc', 'fleetsim_console')).toBeUndefined()
  })

  it('reads HTTP Basic, with a colon in the password', () => {
    expect(basicCredentials(`Basic ${Buffer.from('admin:a:b').toString('base64')}`)).toEqual({ user: 'admin', password: 'a:b' })
    expect(basicCredentials('Bearer abc')).toBeUndefined()
    expect(basicCredentials(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toBeUndefined()
  })

  it('matches admin credentials beyond ASCII, from a login form or Basic (UTF-8), as the REST headers match them', () => {
    const check = createAuthCheck({ user: 'üser', password: 'pässwörd€' })
    const basic = basicCredentials(`Basic ${Buffer.from('üser:pässwörd€').toString('base64')}`)
    expect(basic).toEqual({ user: 'üser', password: 'pässwörd€' })
    expect(credentialsMatch(check, 'üser', 'pässwörd€')).toBe(true)
    expect(credentialsMatch(check, 'üser', 'pässwörd')).toBe(false)
  })
})
