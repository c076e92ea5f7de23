/**
 * The vocabulary of the fleet: agent states, connection modes and module statuses, each with
 * the small integer code stored in shared memory and the name the REST interface uses.
 * Codes are part of the shared-memory layout: never renumber them.
 */

export const AGENT_STATES = ['ONLINE', 'OFFLINE', 'ERROR', 'UNMANAGED', 'UNTRUSTED', 'FORGED'] as const
export type AgentStateName = (typeof AGENT_STATES)[number]

export const AgentState = {
  ONLINE: 0,
  OFFLINE: 1,
  ERROR: 2,
  UNMANAGED: 3,
  UNTRUSTED: 4,
  FORGED: 5
} as const satisfies Record<AgentStateName, number>
export type AgentStateCode = (typeof AgentState)[AgentStateName]

export const MODES = ['Connect', 'Listen', 'Unmanaged'] as const
export type ModeName = (typeof MODES)[number]
export const Mode = { Connect: 0, Listen: 1, Unmanaged: 2 } as const satisfies Record<ModeName, number>

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const
export type LogLevelName = (typeof LOG_LEVELS)[number]

/**
 * Module statuses. The spec shows only RUNNING; the others are the simulator's choice and are
 * documented in docs/protocol.md. The numeric `status` of a module record is the code.
 */
export const MODULE_STATUSES = ['RUNNING', 'STOPPED', 'STARTING', 'FAILED'] as const
export type ModuleStatusName = (typeof MODULE_STATUSES)[number]
export const ModuleStatus = { RUNNING: 0, STOPPED: 1, STARTING: 2, FAILED: 3 } as const satisfies Record<
  ModuleStatusName,
  number
>
export type ModuleStatusCode = (typeof ModuleStatus)[ModuleStatusName]

export function stateName(code: number): AgentStateName {
  const name = AGENT_STATES[code]
  if (name === undefined) throw new RangeError(`unknown agent state code ${code}`)
  return name
}
