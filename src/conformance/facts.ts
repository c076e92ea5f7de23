/**
 * What the checks learn about the manager and hand to later checks: one typed record, each
 * field set by the check that finds it. A check declares the facts it `needs` and the ones it
 * `provides` (src/conformance/check.ts); the runner gives a check its needs, typed as
 * present, or skips it with a sentence saying which fact is missing and why.
 */

/** An agent as agentinfo lists it. */
export interface AgentFact {
  readonly name: string
  readonly status: string
  /** fleetsim adds the uuid to the record; a real manager may not */
  readonly uuid?: string
}

/** An agent a write check created: the UUID-based operations need its uuid. */
export interface CreatedAgent {
  readonly name: string
  readonly uuid: string
}

export interface Facts {
  /** the agents agentinfo lists in any state; never an empty list */
  agents?: readonly [AgentFact, ...AgentFact[]]
  /** the fingerprint of the manager's CA, which agent and template configs must carry */
  caFingerprint?: string
  /** the agent the write checks work on (renamed by modifyagent, deleted by deleteagent-warning) */
  agentA?: CreatedAgent
  /** the agent deleteagent-204 deletes */
  agentB?: CreatedAgent
  /** the master and sub template assigntemplatetoagent assigns */
  templates?: { readonly master: string; readonly sub: string }
}

export type FactName = keyof Facts

/** The facts a check needs, each present. */
export type Given<N extends FactName> = { readonly [K in N]: NonNullable<Facts[K]> }

/**
 * Each fact in words, for skip messages: `what` completes "needs …", `absent` says why a check
 * that provides it may pass without finding it.
 */
export const FACT_TEXT: { readonly [K in FactName]: { readonly what: string; readonly absent: string } } = {
  agents: { what: 'an agent to look at', absent: 'the manager lists no agents' },
  caFingerprint: { what: "the CA's fingerprint", absent: 'no certificate is marked as the CA' },
  agentA: { what: 'a created agent with its uuid', absent: 'agentinfo shows no uuid for it (fleetsim adds one; a real manager may not)' },
  agentB: { what: 'a second created agent with its uuid', absent: 'agentinfo shows no uuid for it (fleetsim adds one; a real manager may not)' },
  templates: { what: 'the templates created by the templates check', absent: 'they were not created' }
}

/** Whether every fact in `needs` is present; narrows `facts` so the check gets them typed. */
export function holds<N extends FactName>(facts: Facts, needs: readonly N[]): facts is Facts & Given<N> {
  return needs.every((name) => facts[name] !== undefined)
}
