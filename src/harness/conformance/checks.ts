/**
 * The black-box checks of `fleetsim conformance`, in the order they run. Each check makes its
 * own requests (so a broken answer fails exactly the check that looks at it) and states what
 * the spec or the facts about the real manager say. Write checks create uniquely named
 * objects (`fleetsim-conformance-<run>-...`) and delete the agents they created.
 */
import { AGENT_STATES } from '../../protocol/states.js'
import { CheckFailure, CheckSkipped, type Answer, type Context } from './context.js'

export interface Check {
  id: string
  title: string
  /** changes the manager's state (skipped with --read-only) */
  write: boolean
  run(context: Context): Promise<void>
}

// ---- assertions ---------------------------------------------------------------------------------

function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message)
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isInteger = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v)
const LOCAL_MINUTE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/

function status(answer: Answer, expected: number, what: string): void {
  ensure(answer.status === expected, `${what}: expected HTTP ${expected}, got ${answer.status} ${answer.body.slice(0, 200)}`)
}

/** The JSON envelope of a successful answer, with its servicename checked. */
function envelope(answer: Answer, servicename: string): Record<string, unknown> {
  status(answer, 200, servicename)
  ensure(isObject(answer.json), `${servicename}: the answer is not a JSON object`)
  ensure(answer.json.servicename === servicename, `${servicename}: servicename is ${JSON.stringify(answer.json.servicename)}`)
  return answer.json
}

function messages(env: Record<string, unknown>, what: string): string[] {
  ensure(Array.isArray(env.values), `${what}: values is not an array`)
  for (const item of env.values) ensure(isObject(item) && typeof item.message === 'string', `${what}: a values item has no string message`)
  return (env.values as Array<{ message: string }>).map((v) => v.message)
}

function links(value: unknown, what: string): Array<{ rel: string; href: string }> {
  ensure(Array.isArray(value), `${what}: links is not an array`)
  for (const link of value) ensure(isObject(link) && typeof link.rel === 'string' && typeof link.href === 'string', `${what}: a link lacks a string rel or href`)
  return value as Array<{ rel: string; href: string }>
}

/** The path of a link address, checked to carry the doubled `mvc`: `{base_url}/mvc/restservice/...`. */
function linkPath(context: Context, href: string, what: string): string {
  let path: string
  try {
    path = decodeURIComponent(new URL(href).pathname)
  } catch {
    throw new CheckFailure(`${what}: link ${JSON.stringify(href)} is not an absolute URL`)
  }
  const prefix = `${context.basePath}/mvc/restservice/`
  ensure(path.startsWith(prefix), `${what}: link path ${path} does not start with ${prefix} (the real manager repeats the mvc segment)`)
  return path.slice(prefix.length)
}

function noLinks(env: Record<string, unknown>, what: string): void {
  ensure(env.links === undefined || (Array.isArray(env.links) && env.links.length === 0), `${what}: the answer has links, the spec shows none`)
}

const TYPES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: isInteger,
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  object: isObject,
  array: Array.isArray
}

function fields(record: unknown, spec: Record<string, string>, what: string): Record<string, unknown> {
  ensure(isObject(record), `${what}: not an object`)
  for (const [key, type] of Object.entries(spec)) {
    ensure(Object.hasOwn(record, key), `${what}: field "${key}" is missing`)
    ensure(TYPES[type](record[key]), `${what}: field "${key}" is ${JSON.stringify(record[key])}, not ${type === 'integer' ? 'an' : 'a'} ${type}`)
  }
  return record
}

const AGENT_FIELDS = {
  name: 'string', version: 'string', status: 'string', os: 'string', address: 'string', 'the service': 'string',
  started: 'string', lastOnline: 'string', load: 'string', memUsage: 'number', received: 'integer', receivedToday: 'integer',
  processing: 'integer', sent: 'integer', sentToday: 'integer', sysinfo: 'string'
}
const MODULE_FIELDS = {
  module_name: 'string', module: 'string', 'module-type': 'integer', type: 'string', isRunning: 'boolean', 'evt-recvd': 'integer',
  queuesize: 'integer', 'evt-fwd': 'integer', 'evt-drop': 'integer', status: 'integer', 'module-status': 'string', id: 'integer', serverInfo: 'object'
}

interface AgentFact {
  name: string
  status: string
  uuid?: string
}

function agents(context: Context): AgentFact[] {
  const list = context.facts.get('agents') as AgentFact[] | undefined
  if (list === undefined || list.length === 0) throw new CheckSkipped('no agents to look at (agentinfo-envelope found none)')
  return list
}

function caFingerprint(context: Context): string {
  const fingerprint = context.facts.get('caFingerprint') as string | undefined
  if (fingerprint === undefined) throw new CheckSkipped('no CA fingerprint (certificateinfo did not name the CA)')
  return fingerprint
}

function created(context: Context, key: string): AgentFact {
  const agent = context.facts.get(key) as AgentFact | undefined
  if (agent?.uuid === undefined) throw new CheckSkipped(`needs the agent created by addagent with its uuid (${key})`)
  return agent
}

const q = encodeURIComponent

/** The agent record's uuid (fleetsim adds it; a real manager may not, then UUID checks skip). */
async function lookUp(context: Context, name: string): Promise<AgentFact | undefined> {
  const answer = await context.send('GET', `agentinfo.json?agentname=${q(name)}`)
  if (answer.status !== 200 || !isObject(answer.json) || !Array.isArray(answer.json.values)) return undefined
  const content = (answer.json.values[0] as { content?: { name?: string; status?: string; uuid?: string } } | undefined)?.content
  if (content?.name !== name) return undefined
  return { name, status: String(content.status), ...(typeof content.uuid === 'string' ? { uuid: content.uuid } : {}) }
}

function globalConfig(ca: string) {
  return { address: '192.0.2.10', port: 4041, 'ca-fingerprint': ca }
}

// ---- the checks -----------------------------------------------------------------------------

const ALL_STATES = AGENT_STATES.map((s) => `agentstate=${s}`).join('&')

export const CHECKS: readonly Check[] = [
  {
    id: 'auth-rejected',
    title: 'requests without or with wrong credentials are refused (401/403)',
    write: false,
    async run(context) {
      const none = await context.send('GET', 'appinfo.json', { auth: false })
      ensure(none.status === 401 || none.status === 403, `without credentials: expected 401 or 403, got ${none.status}`)
      const wrong = await context.send('GET', 'appinfo.json', { auth: 'wrong' })
      ensure(wrong.status === 401 || wrong.status === 403, `with a wrong password: expected 401 or 403, got ${wrong.status}`)
    }
  },
  {
    id: 'agentmanager-envelope',
    title: 'agentmanager: envelope with listener and connector messages and a self link',
    write: false,
    async run(context) {
      const env = envelope(await context.send('GET', 'agentmanager'), 'agentmanager')
      const texts = messages(env, 'agentmanager')
      ensure(texts.some((m) => /listener/i.test(m)), 'agentmanager: no message about the listener')
      ensure(texts.some((m) => /connector/i.test(m)), 'agentmanager: no message about the connector')
      const self = links(env.links, 'agentmanager').filter((l) => l.rel === 'self')
      ensure(self.length === 1, `agentmanager: expected one self link, got ${self.length}`)
    }
  },
  {
    id: 'appinfo-record',
    title: 'appinfo: one manager info item with typed fields',
    write: false,
    async run(context) {
      const env = envelope(await context.send('GET', 'appinfo'), 'appinfo')
      ensure(Array.isArray(env.values) && env.values.length === 1, 'appinfo: expected exactly one values item')
      fields(env.values[0], { mgrUptime: 'integer', licenseState: 'string', licenseExpireDate: 'integer', appVersion: 'string', appRevisionNumber: 'string' }, 'appinfo item')
    }
  },
  {
    id: 'links-double-mvc',
    title: 'links have the form {base_url}/mvc/restservice/... (mvc twice)',
    write: false,
    async run(context) {
      const env = envelope(await context.send('GET', 'appinfo.json'), 'appinfo')
      const [self] = links(env.links, 'appinfo').filter((l) => l.rel === 'self')
      ensure(self !== undefined, 'appinfo: no self link')
      ensure(linkPath(context, self.href, 'appinfo self link').startsWith('appinfo'), `appinfo: self link ${self.href} does not name appinfo`)
    }
  },
  {
    id: 'suffix-json',
    title: 'the .json suffix answers JSON without an accept header',
    write: false,
    async run(context) {
      const answer = await context.send('GET', 'agentmanager.json', { accept: null })
      status(answer, 200, 'agentmanager.json')
      ensure(/json/i.test(String(answer.headers['content-type'])), `agentmanager.json: Content-Type is ${answer.headers['content-type']}`)
      ensure(isObject(answer.json) && answer.json.servicename === 'agentmanager', 'agentmanager.json: the body is not the JSON envelope')
    }
  },
  {
    id: 'xml-root',
    title: 'the .xml suffix answers XML with root <result servicename="...">',
    write: false,
    async run(context) {
      const answer = await context.send('GET', 'agentmanager.xml', { accept: null })
      status(answer, 200, 'agentmanager.xml')
      ensure(/xml/i.test(String(answer.headers['content-type'])), `agentmanager.xml: Content-Type is ${answer.headers['content-type']}`)
      ensure(/^\s*(<\?xml[^>]*\?>\s*)?<result servicename="agentmanager">/.test(answer.body), `agentmanager.xml: root is not <result servicename="agentmanager">: ${answer.body.slice(0, 120)}`)
    }
  },
  {
    id: 'accept-xml',
    title: 'accept: application/xml without a suffix answers XML',
    write: false,
    async run(context) {
      const answer = await context.send('GET', 'agentmanager', { accept: 'application/xml' })
      status(answer, 200, 'agentmanager (accept XML)')
      ensure(/^\s*(<\?xml[^>]*\?>\s*)?<result servicename="agentmanager">/.test(answer.body), `agentmanager with accept XML: not an XML result: ${answer.body.slice(0, 120)}`)
    }
  },
  {
    id: 'agentinfo-envelope',
    title: 'agentinfo: items of content and links (self, online_agents_with_modules, all_agents_with_modules)',
    write: false,
    async run(context) {
      const env = envelope(await context.send('GET', `agentinfo?${ALL_STATES}`), 'agentinfo')
      ensure(Array.isArray(env.values), 'agentinfo: values is not an array')
      const found: AgentFact[] = []
      for (const item of env.values) {
        ensure(isObject(item) && isObject(item.content), 'agentinfo: an item has no content object')
        const rels = links(item.links, 'agentinfo item').map((l) => l.rel).sort()
        ensure(
          ['all_agents_with_modules', 'online_agents_with_modules', 'self'].every((rel) => rels.includes(rel)),
          `agentinfo item of ${String(item.content.name)}: links are ${rels.join(', ')}`
        )
        const content = item.content
        found.push({ name: String(content.name), status: String(content.status), ...(typeof content.uuid === 'string' ? { uuid: content.uuid } : {}) })
      }
      ensure(links(env.links, 'agentinfo').some((l) => l.rel === 'self'), 'agentinfo: no top-level self link')
      context.facts.set('agents', found)
    }
  },
  {
    id: 'agentinfo-record-fields',
    title: 'agentinfo: agent records have the spec fields and types; comma-delimited agentname',
    write: false,
    async run(context) {
      const names = agents(context).slice(0, 5).map((a) => a.name)
      const env = envelope(await context.send('GET', `agentinfo.json?agentname=${names.map(q).join(',')}`), 'agentinfo')
      ensure(Array.isArray(env.values), 'agentinfo: values is not an array')
      const got = env.values.map((item) => String((item as { content?: { name?: unknown } }).content?.name))
      ensure([...got].sort().join(',') === [...names].sort().join(','), `agentinfo by name: asked for ${names.join(',')}, got ${got.join(',')}`)
      for (const item of env.values) {
        const record = fields((item as { content: unknown }).content, AGENT_FIELDS, 'agent record')
        const name = String(record.name)
        ensure((AGENT_STATES as readonly string[]).includes(String(record.status)), `agent ${name}: status ${JSON.stringify(record.status)} is not a state`)
        ensure(LOCAL_MINUTE.test(String(record.started)) && LOCAL_MINUTE.test(String(record.lastOnline)), `agent ${name}: started/lastOnline are not YYYY-MM-DD HH:MM`)
        ensure(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(String(record.load)), `agent ${name}: load ${JSON.stringify(record.load)} is not numeric text`)
        ensure(record.modules === undefined, `agent ${name}: modules present without agentwithmodules`)
      }
    }
  },
  {
    id: 'agentinfo-modules',
    title: 'agentinfo with agentwithmodules=true: module records with their fields and types',
    write: false,
    async run(context) {
      const [first] = agents(context)
      const env = envelope(await context.send('GET', `agentinfo.json?agentname=${q(first.name)}&agentwithmodules=true`), 'agentinfo')
      const content = (env.values as Array<{ content?: Record<string, unknown> }> | undefined)?.[0]?.content
      ensure(content !== undefined && Array.isArray(content.modules), `agent ${first.name}: no modules array with agentwithmodules=true`)
      for (const module of content.modules) {
        const record = fields(module, MODULE_FIELDS, `module of ${first.name}`)
        ensure(record.type === 'INPUT' || record.type === 'OUTPUT', `module ${String(record.module_name)}: type ${JSON.stringify(record.type)}`)
      }
    }
  },
  {
    id: 'agentinfo-state-filter',
    title: 'agentinfo by agentstate lists only agents in that state',
    write: false,
    async run(context) {
      const state = agents(context)[0].status
      const env = envelope(await context.send('GET', `agentinfo.json?agentstate=${q(state)}`), 'agentinfo')
      ensure(Array.isArray(env.values) && env.values.length > 0, `agentinfo?agentstate=${state}: no agents, though one was ${state}`)
      for (const item of env.values) {
        const content = (item as { content?: { name?: unknown; status?: unknown } }).content
        ensure(content?.status === state, `agentinfo?agentstate=${state}: ${String(content?.name)} is ${String(content?.status)}`)
      }
    }
  },
  {
    id: 'error-envelope',
    title: 'a bad parameter gets a 4xx with an errors envelope (status, message)',
    write: false,
    async run(context) {
      const answer = await context.send('GET', 'agentinfo.json?agentstate=NOT_A_STATE')
      ensure(answer.status >= 400 && answer.status < 500, `agentinfo?agentstate=NOT_A_STATE: expected a 4xx, got ${answer.status}`)
      ensure(isObject(answer.json) && Array.isArray(answer.json.errors) && answer.json.errors.length > 0, 'error answer: no errors array')
      for (const error of answer.json.errors) fields(error, { status: 'integer', message: 'string' }, 'error item')
    }
  },
  {
    id: 'certificateinfo',
    title: 'certificateinfo: certificates with status, dates and fingerprint; the CA is among them',
    write: false,
    async run(context) {
      const env = envelope(await context.send('GET', 'certificateinfo.json'), 'certificateinfo')
      ensure(Array.isArray(env.values) && env.values.length > 0, 'certificateinfo: no certificates')
      for (const item of env.values) {
        const cert = fields(item, { name: 'string', status: 'string', activation: 'string', expiration: 'string', fingerprint: 'string' }, 'certificate')
        ensure(['VALID', 'REVOKED', 'EXPIRED'].includes(String(cert.status)), `certificate ${String(cert.name)}: status ${JSON.stringify(cert.status)}`)
        ensure(LOCAL_MINUTE.test(String(cert.activation)) && LOCAL_MINUTE.test(String(cert.expiration)), `certificate ${String(cert.name)}: dates are not YYYY-MM-DD HH:MM`)
      }
      const ca = (env.values as Array<Record<string, unknown>>).find((c) => c.type === 'CA' || c['use-as-default-ca'] === true)
      ensure(ca !== undefined, 'certificateinfo: no CA certificate (type CA or use-as-default-ca)')
      context.facts.set('caFingerprint', ca.fingerprint)
    }
  },
  {
    id: 'addagent',
    title: 'addagent: one message and a self link to viewagentortemplate?name=<agent>',
    write: true,
    async run(context) {
      const ca = caFingerprint(context)
      for (const key of ['b', 'a']) {
        const name = `fleetsim-conformance-${context.unique}-${key}`
        const answer = await context.send('POST', 'addagent', { body: { name, 'global-config': globalConfig(ca) } })
        const agent = answer.status === 200 ? await lookUp(context, name) : undefined
        if (agent?.uuid !== undefined) context.createdAgents.add(agent.uuid)
        if (agent !== undefined) context.facts.set(`agent-${key}`, agent)
        if (key === 'b') continue
        const env = envelope(answer, 'addagent')
        ensure(messages(env, 'addagent').length === 1, 'addagent: expected one message')
        const all = links(env.links, 'addagent')
        ensure(all.length === 1 && all[0].rel === 'self', 'addagent: expected one self link')
        const path = linkPath(context, all[0].href, 'addagent self link')
        ensure(path === 'viewagentortemplate' && new URL(all[0].href).searchParams.get('name') === name, `addagent: self link ${all[0].href} is not viewagentortemplate?name=${name}`)
        ensure(agent !== undefined, `addagent: agentinfo does not find ${name}`)
      }
    }
  },
  {
    id: 'modifyagent',
    title: 'modifyagent: renames the agent; the self link carries the new name',
    write: true,
    async run(context) {
      const agent = created(context, 'agent-a')
      const name = `${agent.name}-m`
      const answer = await context.send('PUT', `modifyagent?agentName=${q(agent.name)}`, { body: { name, 'global-config': globalConfig(caFingerprint(context)) } })
      // Renamed on the manager whatever the answer looks like: later checks use the new name.
      if (answer.status === 200) context.facts.set('agent-a', { ...agent, name })
      const env = envelope(answer, 'modifyagent')
      ensure(messages(env, 'modifyagent').length === 1, 'modifyagent: expected one message')
      const [self] = links(env.links, 'modifyagent')
      ensure(self !== undefined && new URL(self.href).searchParams.get('name') === name, `modifyagent: self link ${self?.href} does not carry the new name ${name}`)
      linkPath(context, self.href, 'modifyagent self link')
    }
  },
  {
    id: 'templates',
    title: 'addmastertemplate, addsubtemplate, modifymastertemplate: one message and a self link each',
    write: true,
    async run(context) {
      const master = `fleetsim-conformance-${context.unique}-master`
      const sub = `fleetsim-conformance-${context.unique}-sub`
      const config = globalConfig(caFingerprint(context))
      const steps: Array<[string, string, string, unknown, string]> = [
        ['POST', 'addmastertemplate', 'addmastertemplate', { name: master, description: 'conformance', 'global-config': config }, master],
        ['POST', 'addsubtemplate', 'addsubtemplate', { name: sub, 'global-config': { verbatim: '# conformance' } }, sub],
        ['PUT', `modifymastertemplate?masterTemplateName=${q(master)}`, 'modifymastertemplate', { name: master, description: 'conformance 2', 'global-config': config }, master]
      ]
      for (const [method, path, operation, body, name] of steps) {
        const env = envelope(await context.send(method, path, { body }), operation)
        ensure(messages(env, operation).length === 1, `${operation}: expected one message`)
        const [self] = links(env.links, operation)
        ensure(self !== undefined && new URL(self.href).searchParams.get('name') === name, `${operation}: self link ${self?.href} does not name ${name}`)
        linkPath(context, self.href, `${operation} self link`)
      }
      context.facts.set('templates', { master, sub })
    }
  },
  {
    id: 'assigntemplatetoagent',
    title: 'assigntemplatetoagent: messages per agent and a self link viewagentortemplate/<agent> per agent',
    write: true,
    async run(context) {
      const agent = created(context, 'agent-a')
      const templates = context.facts.get('templates') as { master: string; sub: string } | undefined
      if (templates === undefined) throw new CheckSkipped('needs the templates of the templates check')
      const env = envelope(
        await context.send('POST', `assigntemplatetoagent?agentUuids=${q(agent.uuid as string)}&templateName=${q(templates.master)}&subTemplateNames=${q(templates.sub)}`),
        'assigntemplatetoagent'
      )
      ensure(messages(env, 'assigntemplatetoagent').length >= 1, 'assigntemplatetoagent: no messages')
      const all = links(env.links, 'assigntemplatetoagent')
      ensure(all.length === 1, `assigntemplatetoagent: expected one link per agent, got ${all.length}`)
      const path = linkPath(context, all[0].href, 'assigntemplatetoagent link')
      ensure(path === `viewagentortemplate/${agent.name}`, `assigntemplatetoagent: link ${all[0].href} is not viewagentortemplate/${agent.name}`)
    }
  },
  {
    id: 'labels',
    title: 'setcustomlabel and removecustomlabel: servicename and links only',
    write: true,
    async run(context) {
      const agent = created(context, 'agent-a')
      const label = `fleetsim-conformance-${context.unique}-label`
      const set = envelope(await context.send('POST', `setcustomlabel?agentUuids=${q(agent.uuid as string)}`, { body: { name: label, value: 'x' } }), 'setcustomlabel')
      ensure(set.values === undefined, 'setcustomlabel: the answer has values, the spec shows servicename and links only')
      ensure(links(set.links, 'setcustomlabel').length > 0, 'setcustomlabel: no links')
      const removed = envelope(await context.send('POST', `removecustomlabel?labelNames=${q(label)}`), 'removecustomlabel')
      ensure(removed.values === undefined, 'removecustomlabel: the answer has values, the spec shows servicename and links only')
      ensure(links(removed.links, 'removecustomlabel').length > 0, 'removecustomlabel: no links')
    }
  },
  {
    id: 'stop-start',
    title: 'stopagent and startagent: per-agent values or errors and one self link per agent',
    write: true,
    async run(context) {
      const agent = created(context, 'agent-a')
      for (const operation of ['stopagent', 'startagent']) {
        const env = envelope(await context.send('POST', `${operation}?agentUuids=${q(agent.uuid as string)}`), operation)
        const values = Array.isArray(env.values) ? env.values.length : 0
        const errors = Array.isArray(env.errors) ? env.errors : []
        for (const error of errors) fields(error, { status: 'integer', message: 'string' }, `${operation} error item`)
        ensure(values + errors.length >= 1, `${operation}: neither values nor errors for the agent`)
        const all = links(env.links, operation)
        ensure(all.length === 1 && all[0].rel === 'self', `${operation}: expected one self link per agent, got ${all.length}`)
        linkPath(context, all[0].href, `${operation} link`)
      }
    }
  },
  {
    id: 'deleteagent-warning',
    title: 'deleteagent with revokeCert=false: a warning and a deleted message, no links',
    write: true,
    async run(context) {
      const agent = created(context, 'agent-a')
      const env = envelope(await context.send('DELETE', `deleteagent?agentUuids=${q(agent.uuid as string)}&revokeCert=false`), 'deleteagent')
      context.createdAgents.delete(agent.uuid as string)
      const texts = messages(env, 'deleteagent')
      ensure(texts.length === 2, `deleteagent: expected a warning and a deleted message, got ${texts.length} messages`)
      ensure(texts.some((m) => /revok/i.test(m)), 'deleteagent: no warning that the certificate should be revoked')
      noLinks(env, 'deleteagent')
    }
  },
  {
    id: 'deleteagent-204',
    title: 'deleteagent with revokeCert=true: 204 and no content',
    write: true,
    async run(context) {
      const agent = created(context, 'agent-b')
      const answer = await context.send('DELETE', `deleteagent?agentUuids=${q(agent.uuid as string)}&revokeCert=true`)
      status(answer, 204, 'deleteagent revokeCert=true')
      context.createdAgents.delete(agent.uuid as string)
      ensure(answer.body === '', `deleteagent revokeCert=true: 204 with a body: ${answer.body.slice(0, 80)}`)
    }
  },
  {
    id: 'createfield',
    title: 'createfield: the field with assigned ids, no links',
    write: true,
    async run(context) {
      const name = `fleetsim_conformance_${context.unique}`
      const env = envelope(
        await context.send('POST', 'createfield', { body: { name, type: 'STRING', fieldDescription: { description: 'conformance' }, persist: false, lookup: false } }),
        'createfield'
      )
      ensure(Array.isArray(env.values) && env.values.length === 1, 'createfield: expected one values item')
      const field = fields(env.values[0], { name: 'string', type: 'string', id: 'integer', fieldDescription: 'object', persist: 'boolean', lookup: 'boolean' }, 'field')
      fields(field.fieldDescription, { description: 'string', id: 'integer' }, 'fieldDescription')
      noLinks(env, 'createfield')
    }
  }
]
