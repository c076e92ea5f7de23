/**
 * The console's login sessions: a random token per login, held in memory only (a restart logs
 * everyone out, which a simulator can afford), each expiring a fixed time after the login.
 * The token is the whole secret: 32 random bytes, compared by Map lookup (by hash, never
 * character by character), and never written to a log.
 */
import { randomBytes } from 'node:crypto'

/** How long a login lasts: a working day. */
export const SESSION_TTL_MS = 8 * 3600 * 1000
/** Most sessions held at once; past it the oldest is dropped, so repeated logins cannot grow memory. */
export const MAX_SESSIONS = 1000

export interface Session {
  readonly user: string
  /** wall epoch ms */
  readonly expiresAt: number
}

export class SessionStore {
  // Insertion order is login order: the first entry is the oldest.
  private readonly sessions = new Map<string, Session>()

  constructor(
    private readonly ttlMs = SESSION_TTL_MS,
    private readonly now: () => number = Date.now
  ) {}

  /** A new session for `user`; returns its token. */
  create(user: string): { token: string; session: Session } {
    this.sweep()
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string)
    const token = randomBytes(32).toString('base64url')
    const session = { user, expiresAt: this.now() + this.ttlMs }
    this.sessions.set(token, session)
    return { token, session }
  }

  /** The live session of this token, or undefined (unknown, ended or expired). */
  get(token: string | undefined): Session | undefined {
    if (token === undefined) return undefined
    const session = this.sessions.get(token)
    if (session === undefined) return undefined
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(token)
      return undefined
    }
    return session
  }

  end(token: string | undefined): void {
    if (token !== undefined) this.sessions.delete(token)
  }

  get size(): number {
    return this.sessions.size
  }

  /** Drops expired sessions (at each login: logins are rare, sessions few). */
  private sweep(): void {
    const now = this.now()
    for (const [token, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(token)
  }
}
