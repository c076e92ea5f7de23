/**
 * Authentication by the `REST_USER` and `REST_PASSWORD` headers of every request. Both values
 * are hashed and compared with `timingSafeEqual`, so the time taken says nothing about how
 * much of a guess was right (hashing first makes the lengths equal). Both comparisons always
 * run. Exported for other route groups (e.g. `/__admin/*`) to reuse.
 *
 * A pair that passed is remembered, so a client sending the same headers again costs a
 * lookup rather than two digests. The lookup is by hash (a Map keyed by the strings), never a
 * character-by-character comparison with the secret, so it says nothing about how close a
 * wrong guess came; any other pair takes the digest path above.
 */
import { hash, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'

export interface Credentials {
  user: string
  password: string
}

export type AuthCheck = (headers: IncomingHttpHeaders) => boolean

/**
 * One-shot hashing: no Hash object per call (two digests per request). Of bytes: a header value
 * as Node hands it over, a character per byte received (latin1), and a configured value as the
 * UTF-8 a client sends for it. Hashed as strings (UTF-8 both), a configured `pässwörd` never
 * matched what curl sent for it.
 */
function digest(value: string, encoding: 'latin1' | 'utf8'): Buffer {
  return hash('sha256', Buffer.from(value, encoding), 'buffer')
}

export function createAuthCheck(credentials: Credentials): AuthCheck {
  const user = digest(credentials.user, 'utf8')
  const password = digest(credentials.password, 'utf8')
  // user → passwords that passed with it (only the configured pair ever can: one entry).
  const passed = new Map<string, Set<string>>()
  return (headers) => {
    const givenUser = headers.rest_user
    const givenPassword = headers.rest_password
    if (typeof givenUser === 'string' && typeof givenPassword === 'string' && passed.get(givenUser)?.has(givenPassword) === true) return true
    const userOk = timingSafeEqual(digest(typeof givenUser === 'string' ? givenUser : '', 'latin1'), user)
    const passwordOk = timingSafeEqual(digest(typeof givenPassword === 'string' ? givenPassword : '', 'latin1'), password)
    const ok = userOk && passwordOk && typeof givenUser === 'string' && typeof givenPassword === 'string'
    if (ok) {
      const passwords = passed.get(givenUser) ?? new Set<string>()
      passwords.add(givenPassword)
      passed.set(givenUser, passwords)
    }
    return ok
  }
}
