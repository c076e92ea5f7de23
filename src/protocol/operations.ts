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
