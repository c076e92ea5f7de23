/** One conformance check: what it is called, what it needs from earlier checks, what it finds. */
import type { Context } from './context.js'
import type { FactName, Given } from './facts.js'

export interface Check<N extends FactName = FactName, P extends FactName = FactName> {
  /** stable id, shown in the table and accepted by --only */
  readonly id: string
  readonly title: string
  /** changes the manager's state (skipped with --read-only) */
  readonly write: boolean
  /** facts earlier checks must have found; without one the check is skipped, saying which */
  readonly needs?: readonly N[]
  /** facts this check hands on with `context.learn` (which takes no other) */
  readonly provides?: readonly P[]
  /**
   * Makes its own requests and throws CheckFailure when an answer breaks the contract. A check
   * that passes may return a note for the user, printed under its line (what it left behind).
   */
  run(context: Context<P>, facts: Given<N>): Promise<string | void>
}

/**
 * A check with its `needs` and `provides` inferred: `run` gets exactly the facts it needs,
 * typed as present, and may learn only those it provides.
 */
export function defineCheck<const N extends FactName = never, const P extends FactName = never>(check: Check<N, P>): Check<N, P> {
  return check
}
