/**
 * TypeBox schemas of every request and response: one source for validation, the TypeScript
 * types of the handlers, fast JSON serialisation and the OpenAPI document.
 */
import Type, { type Static, type TSchema } from 'typebox'
import { AGENT_STATES, LOG_LEVELS, MODES, MODULE_STATUSES } from '../protocol/states.js'
import { FIELD_TYPES } from '../manager/fields.js'
import { NAME_RULE, type NameKind } from './names.js'

// ---- envelope -------------------------------------------------------------------------------

export const Link = Type.Object({ rel: Type.String(), href: Type.String() })
export type Link = Static<typeof Link>

export const MessageItem = Type.Object({ message: Type.String() })

/** `status` is 0 for a per-agent failure (spec) and the HTTP status for a request error. */
export const ErrorItem = Type.Object({
  status: Type.Integer(),
  message: Type.String(),
  code: Type.Optional(Type.String({ description: 'stable error code (request errors only)' }))
})
export type ErrorItem = Static<typeof ErrorItem>

export function Envelope<T extends TSchema>(item: T) {
  return Type.Object({
    servicename: Type.String(),
    values: Type.Optional(Type.Array(item)),
    errors: Type.Optional(Type.Array(ErrorItem)),
    links: Type.Optional(Type.Array(Link))
  })
}

export const MessageEnvelope = Envelope(MessageItem)

export const ErrorEnvelope = Type.Object({
  servicename: Type.String(),
  errors: Type.Array(ErrorItem)
})

/** Response schemas shared by every operation for the error statuses. */
export const ERROR_RESPONSES = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope } as const

// ---- records --------------------------------------------------------------------------------

export const ModuleRecord = Type.Object({
  module_name: Type.String(),
  module: Type.String(),
  'module-type': Type.Integer(),
  type: Type.String(),
  isRunning: Type.Boolean(),
  'evt-recvd': Type.Integer(),
  queuesize: Type.Integer(),
  'evt-fwd': Type.Integer(),
  'evt-drop': Type.Integer(),
  status: Type.Integer(),
  'module-status': Type.Enum([...MODULE_STATUSES]),
  id: Type.Integer(),
  serverInfo: Type.Object({})
})
export type ModuleRecord = Static<typeof ModuleRecord>

export const AgentRecord = Type.Object({
  name: Type.String(),
  uuid: Type.String(),
  version: Type.String(),
  status: Type.Enum([...AGENT_STATES]),
  os: Type.String(),
  address: Type.String(),
  'the service': Type.String(),
  started: Type.String({ description: 'YYYY-MM-DD HH:MM' }),
  lastOnline: Type.String({ description: 'YYYY-MM-DD HH:MM' }),
  load: Type.String({ description: 'numeric text' }),
  memUsage: Type.Number({ description: 'bytes' }),
  received: Type.Integer(),
  receivedToday: Type.Integer(),
  processing: Type.Integer(),
  sent: Type.Integer(),
  sentToday: Type.Integer(),
  sysinfo: Type.String(),
  modules: Type.Optional(Type.Array(ModuleRecord))
})
export type AgentRecord = Static<typeof AgentRecord>

export const AgentinfoItem = Type.Object({ content: AgentRecord, links: Type.Array(Link) })
export type AgentinfoItem = Static<typeof AgentinfoItem>

export const ManagerInfo = Type.Object({
  mgrUptime: Type.Integer({ description: 'seconds of virtual time since the simulator started' }),
  licenseState: Type.String(),
  licenseExpireDate: Type.Integer({ description: '0: never (PERMANENT licence)' }),
  appVersion: Type.String(),
  appRevisionNumber: Type.String()
})

export const FieldRecord = Type.Object({
  name: Type.String(),
  type: Type.String(),
  fieldDescription: Type.Object({ description: Type.String(), id: Type.Integer() }),
  persist: Type.Boolean(),
  lookup: Type.Boolean(),
  id: Type.Integer()
})

export const CertificateItem = Type.Object({
  name: Type.String(),
  country: Type.String(),
  state: Type.String(),
  city: Type.String(),
  organization: Type.String(),
  'organization-unit': Type.String(),
  activation: Type.String(),
  expiration: Type.String(),
  'use-as-default-ca': Type.Boolean(),
  status: Type.Enum(['VALID', 'REVOKED', 'EXPIRED']),
  id: Type.Integer(),
  issuer: Type.String(),
  subject: Type.String(),
  'serial-number': Type.String(),
  'sig-alg-name': Type.String(),
  type: Type.Enum(['CA', 'CERT']),
  fingerprint: Type.String()
})

// ---- request bodies -------------------------------------------------------------------------

const Name = Type.String({ minLength: 1 })
/**
 * The name a body gives an agent, template or label: the validator also applies the naming
 * rule of src/http/names.ts (no commas, control characters, lone surrogates or whitespace at
 * either end), so the list parameters that address such names can always find it.
 */
const NewName = (kind: NameKind) =>
  Type.String({ minLength: 1, [NAME_RULE]: kind, description: `${kind} name: no commas, control characters or whitespace at either end` })
const Port = Type.Integer({ minimum: 1, maximum: 65535 })
const LogLevel = Type.Enum([...LOG_LEVELS], { default: 'INFO' })
const Mode = Type.Enum([...MODES], { default: 'Connect' })

export const AgentGlobalConfig = Type.Object({
  address: Type.String({ minLength: 1 }),
  port: Port,
  'ca-fingerprint': Type.String({ minLength: 1 }),
  'cert-fingerprint': Type.Optional(Type.String({ minLength: 1 })),
  'is-log-to-file': Type.Optional(Type.Boolean({ default: true })),
  'log-level': Type.Optional(LogLevel),
  mode: Type.Optional(Mode),
  verbatim: Type.Optional(Type.String())
})
export type AgentGlobalConfig = Static<typeof AgentGlobalConfig>

export const AddAgentBody = Type.Object(
  { name: Type.Optional(NewName('agent')), 'global-config': AgentGlobalConfig },
  { title: 'agent' }
)
export const ModifyAgentBody = Type.Object({ name: NewName('agent'), 'global-config': AgentGlobalConfig }, { title: 'agent' })

/** The spec: the same members as the agent's `global-config` except `cert-fingerprint`. */
export const MasterGlobalConfig = Type.Omit(AgentGlobalConfig, ['cert-fingerprint'])
export type MasterGlobalConfig = Static<typeof MasterGlobalConfig>

export const MasterTemplateBody = Type.Object(
  { name: NewName('master template'), description: Type.Optional(Type.String()), 'global-config': MasterGlobalConfig },
  { title: 'masterTemplate' }
)
export const SubTemplateBody = Type.Object(
  {
    name: NewName('sub template'),
    description: Type.Optional(Type.String()),
    'global-config': Type.Optional(Type.Object({ verbatim: Type.Optional(Type.String()) }))
  },
  { title: 'subTemplate' }
)

export const TemplateRecord = Type.Object({
  name: Type.String(),
  id: Type.Integer(),
  templateType: Type.Enum(['MASTER', 'SUB']),
  description: Type.String(),
  'global-config': Type.Object({
    address: Type.Optional(Type.String()),
    port: Type.Optional(Type.Integer()),
    'ca-fingerprint': Type.Optional(Type.String()),
    'is-log-to-file': Type.Optional(Type.Boolean()),
    'log-level': Type.Optional(Type.String()),
    mode: Type.Optional(Type.String()),
    verbatim: Type.Optional(Type.String())
  })
})
export type TemplateRecord = Static<typeof TemplateRecord>

export const LabelBody = Type.Object({ name: NewName('custom label'), value: Type.String() }, { title: 'label' })

export const FieldBody = Type.Object(
  {
    name: Name,
    type: Type.Enum([...FIELD_TYPES]),
    fieldDescription: Type.Optional(Type.Object({ description: Type.Optional(Type.String()) })),
    persist: Type.Optional(Type.Boolean()),
    lookup: Type.Optional(Type.Boolean())
  },
  { title: 'field' }
)

// ---- query strings --------------------------------------------------------------------------

/**
 * A list parameter: comma-delimited as the spec says (the OpenAPI document declares
 * `style: form, explode: false`, src/http/openapi.ts), the repeated form accepted too.
 */
function List<T extends TSchema>(item: T, description: string) {
  return Type.Array(item, { minItems: 1, description: `${description}, comma-delimited (\`a,b\`); the repeated form (\`x=a&x=b\`) is accepted too` })
}

/** A list the spec gives by repeating the parameter (agentstate; `explode: true` in the document), the comma-delimited form accepted too. */
function RepeatedList<T extends TSchema>(item: T, description: string) {
  return Type.Array(item, { minItems: 1, description: `${description}, repeated (\`x=a&x=b\`); the comma-delimited form (\`a,b\`) is accepted too` })
}

const Uuids = List(Type.String({ minLength: 1 }), 'agent UUIDs')

export const AgentinfoQuery = Type.Object({
  agentname: Type.Optional(List(Type.String({ minLength: 1 }), 'agent names')),
  agentstate: Type.Optional(RepeatedList(Type.Enum([...AGENT_STATES]), 'agent states')),
  agentwithmodules: Type.Optional(Type.Boolean())
})

export const AssignTemplateQuery = Type.Object({
  agentUuids: Uuids,
  templateName: Type.Optional(Name),
  subTemplateNames: Type.Optional(List(Name, 'sub template names')),
  updateAgents: Type.Optional(Type.Boolean())
})

export const UpdateAndReloadQuery = Type.Object({
  agentUuids: Type.Optional(Uuids),
  forceOverrideLocalChanges: Type.Optional(Type.Boolean({ description: 'accepted; no effect in the simulator' }))
})

export const DeleteAgentQuery = Type.Object({ agentUuids: Uuids, revokeCert: Type.Boolean() })
export const ModifyAgentQuery = Type.Object({ agentName: Name })
export const AgentUuidsQuery = Type.Object({ agentUuids: Uuids })

export const SetLabelQuery = Type.Object({
  agentUuids: Type.Optional(Uuids),
  oldName: Type.Optional(Name),
  setForAgentsOnly: Type.Optional(Type.Boolean({ description: 'accepted; no effect in the simulator' })),
  scheduledUpdate: Type.Optional(Type.Boolean({ description: 'accepted; no effect in the simulator' }))
})

export const RemoveLabelQuery = Type.Object({
  labelNames: List(Name, 'label names'),
  agentUuids: Type.Optional(Uuids)
})

export const ModifyMasterQuery = Type.Object({ masterTemplateName: Name })
export const ModifySubQuery = Type.Object({ subTemplateName: Name })

export const CertificateinfoQuery = Type.Object({
  expirein: Type.Optional(List(Type.Integer({ minimum: 0 }), 'days'))
})

export const ViewQuery = Type.Object({ name: Name, agentwithmodules: Type.Optional(Type.Boolean()) })
export const ViewPathQuery = Type.Object({ agentwithmodules: Type.Optional(Type.Boolean()) })
export const ViewParams = Type.Object({ name: Name })
