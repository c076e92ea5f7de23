/** What a conformance check gets and how it reports: shared by the runner and the checks. */
import type { HttpAnswer } from './http-client.js'
import type { FactName, Facts } from './facts.js'

/** Thrown by a check whose expectation failed; the message says what was expected and got. */
export class CheckFailure extends Error {}

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

/**
 * What checks share: the connection, a way to hand facts on, and what to clean up. `P` are the
 * facts the check declares in `provides`: the only ones its `learn` accepts.
 */
export interface Context<P extends FactName = FactName> {
  /** path of the application, e.g. `/manager/mvc` */
  readonly basePath: string
  /** unique part of names this run creates */
  readonly unique: string
  /** agent UUIDs to delete at the end, if still there */
  readonly createdAgents: Set<string>
  /** Hands a fact to later checks. */
  learn<K extends P>(name: K, value: NonNullable<Facts[K]>): void
  send(method: string, path: string, options?: SendOptions): Promise<Answer>
}
