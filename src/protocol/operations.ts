/** The operations of the interface, their methods, and which take a `.json`/`.xml` suffix. */
export interface OperationDef {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** the `.json` / `.xml` suffix replaces the accept and Content-Type headers */
  suffix: boolean
}

export const OPERATIONS = {
  addagent: { method: 'POST', suffix: false },
  agentinfo: { method: 'GET', suffix: true },
  assigntemplatetoagent: { method: 'POST', suffix: false },
  updateandreloadagent: { method: 'POST', suffix: false },
  deleteagent: { method: 'DELETE', suffix: false },
  modifyagent: { method: 'PUT', suffix: false },
  startagent: { method: 'POST', suffix: false },
  stopagent: { method: 'POST', suffix: false },
  setcustomlabel: { method: 'POST', suffix: false },
  removecustomlabel: { method: 'POST', suffix: false },
  addmastertemplate: { method: 'POST', suffix: false },
  addsubtemplate: { method: 'POST', suffix: false },
  modifymastertemplate: { method: 'PUT', suffix: false },
  modifysubtemplate: { method: 'PUT', suffix: false },
  agentmanager: { method: 'GET', suffix: true },
  appinfo: { method: 'GET', suffix: true },
  createfield: { method: 'POST', suffix: false },
  certificateinfo: { method: 'GET', suffix: true },
  viewagentortemplate: { method: 'GET', suffix: false }
} as const satisfies Record<string, OperationDef>

export type OperationName = keyof typeof OPERATIONS

export function isOperation(name: string): name is OperationName {
  return Object.hasOwn(OPERATIONS, name)
}

/** Every operation name, in the order of OPERATIONS (for did-you-mean suggestions). */
export const OPERATION_NAMES: readonly OperationName[] = Object.freeze(Object.keys(OPERATIONS) as OperationName[])

/** The operations that take the `.json`/`.xml` suffix, for messages. */
export const SUFFIX_OPERATIONS: readonly OperationName[] = Object.freeze(OPERATION_NAMES.filter((name) => OPERATIONS[name].suffix))

/** A path segment as a client wrote it: `agentinf.json` is the name `agentinf` and the suffix `json`. */
export function splitSuffix(written: string): { name: string; suffix?: 'json' | 'xml' } {
  if (written.endsWith('.json')) return { name: written.slice(0, -'.json'.length), suffix: 'json' }
  if (written.endsWith('.xml')) return { name: written.slice(0, -'.xml'.length), suffix: 'xml' }
  return { name: written }
}

/**
 * An operation written with the suffix a client used, where the operation takes one: what to
 * suggest for `agentinf.json` is `agentinfo.json`, for `stopagnt.json` it is `stopagent`.
 */
export function withSuffix(operation: OperationName, suffix: 'json' | 'xml' | undefined): string {
  return suffix !== undefined && OPERATIONS[operation].suffix ? `${operation}.${suffix}` : operation
}
