/** What a conformance check gets and how it reports: shared by the runner and the checks. */
import type { HttpAnswer } from '../http-client.js'

/** Thrown by a check whose expectation failed; the message says what was expected and got. */
export class CheckFailure extends Error {}
/** Thrown by a check that cannot run here (nothing to look at, or an earlier check left nothing). */
export class CheckSkipped extends Error {}

export interface SendOptions {
  headers?: Record<string, string>
  /** JSON-encoded unless a string */
  body?: unknown
  /** false: no credentials; 'wrong': a wrong password */
  auth?: boolean | 'wrong'
  /** default application/json */
  accept?: string | null
}

export interface Answer extends HttpAnswer {
  /** the body parsed as JSON, or undefined */
  json: unknown
}

/** What checks share: the connection, facts found by earlier checks, and what to clean up. */
export interface Context {
  /** path of the application, e.g. `/manager/mvc` */
  readonly basePath: string
  /** unique part of names this run creates */
  readonly unique: string
  readonly facts: Map<string, unknown>
  /** agent UUIDs to delete at the end, if still there */
  readonly createdAgents: Set<string>
  send(method: string, path: string, options?: SendOptions): Promise<Answer>
}

