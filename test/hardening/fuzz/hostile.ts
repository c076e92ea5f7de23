/**
 * Request families aimed at attacks that once stopped or fooled the server (issue 13), mixed
 * into the fuzz run by requests.ts with the weights below:
 * - `bad-name`: agent, template and label names list parameters cannot address (commas,
 *   whitespace at either end, control characters, lone surrogates, empty), in JSON and XML
 *   bodies of every operation that names something, next to ordinary non-ASCII names;
 * - `huge-url`: URLs of about 1 MB (query, path, path parameter) and 1 MB bodies, without or
 *   with wrong credentials;
 * - `scenario-bomb`: PUT /__admin/scenario with deep flow and block nesting (up to the fuzz
 *   app's body limit, past 10,000 levels) and YAML alias bombs. None is a valid scenario, so
 *   none may replace the fleet; the answer must be a 4xx, never a 5xx or a crash.
 *
 * The weights keep each family to a few dozen requests in the CI run of 10,000: enough to
 * meet every shape, few enough that the run stays about as fast as before. The attacks as
 * reported are sent first, in a fixed order (openingRequests).
 */
import fc from 'fast-check'
import type { FuzzRequest, Pool } from './requests.js'

/** Relative weights of the families against the random mix (`mix`). */
export const FAMILY_WEIGHTS = { mix: 200, 'bad-name': 6, 'huge-url': 1, 'scenario-bomb': 1 } as const
export const HOSTILE_FAMILIES = ['bad-name', 'huge-url', 'scenario-bomb'] as const

const MEGABYTE = 1_000_000

// ---- names --------------------------------------------------------------------------------

const ordinary = fc.string({ unit: fc.constantFrom(...'abcxyz019-_.'), minLength: 1, maxLength: 6 })

/** One character the naming rule refuses somewhere, and where it puts it. */
const badPiece: fc.Arbitrary<{ text: string; at: 'start' | 'inside' | 'end' | 'alone' }> = fc.oneof(
  fc.constant({ text: ',', at: 'inside' as const }),
  fc.constantFrom(',', ',,', ' , ').map((text) => ({ text, at: 'end' as const })),
  fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u2028').chain((text) => fc.constantFrom('start', 'end').map((at) => ({ text, at: at as 'start' | 'end' }))),
  // C0 controls, DEL and C1 controls, anywhere.
  fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f })).map((c) => ({ text: String.fromCharCode(c), at: 'inside' as const })),
  // A lone half of a surrogate pair.
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => ({ text: String.fromCharCode(c), at: 'inside' as const })),
  fc.constantFrom('', ' ', '\t').map((text) => ({ text, at: 'alone' as const }))
)

const badName = fc.tuple(ordinary, badPiece, ordinary).map(([left, piece, right]) => {
  switch (piece.at) {
    case 'start':
      return `${piece.text}${left}${right}`
    case 'end':
      return `${left}${right}${piece.text}`
    case 'alone':
      return piece.text
    default:
      return `${left}${piece.text}${right}`
  }
})

/** Names the rule keeps: inner spaces, dots, dashes, underscores, any letters. */
const goodName = fc.oneof(
  fc.constantFrom('café-01', 'web 01.lon_2', 'Zürich Ost', '東京-01', 'rocket-🚀'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).filter((s) => s.trim() === s && !/[,\p{Cc}]/u.test(s))
)

/** Every code point outside [A-Za-z0-9] as a character reference: the only way a leading space, a control character or a lone surrogate reaches a name through XML. */
function xmlBody(root: string, value: Record<string, unknown>): string {
  const text = (s: string) => Array.from(s, (c) => (/[A-Za-z0-9]/.test(c) ? c : `&#x${(c.codePointAt(0) as number).toString(16)};`)).join('')
  const element = (key: string, item: unknown): string =>
    item !== null && typeof item === 'object' ? `<${key}>${Object.entries(item).map(([k, v]) => element(k, v)).join('')}</${key}>` : `<${key}>${text(String(item))}</${key}>`
  return `<?xml version="1.0" encoding="UTF-8"?>${element(root, value)}`
}

/** Operations that name something new, and where the name goes. */
const NAMING = ['addagent', 'modifyagent', 'addmastertemplate', 'modifymastertemplate', 'addsubtemplate', 'modifysubtemplate', 'setcustomlabel'] as const
type NamingOperation = (typeof NAMING)[number]

/** One operation naming something `name`, in JSON or XML; `agent` is the agent modifyagent renames. */
function namingRequest(pool: Pool, operation: NamingOperation, name: string, asXml: boolean, agent: string): FuzzRequest {
  const config = { address: '192.0.2.1', port: 4041, 'ca-fingerprint': pool.caFingerprint }
  const [method, query, root, body]: [string, string, string, Record<string, unknown>] = (() => {
    switch (operation) {
      case 'addagent':
        return ['POST', '', 'agent', { name, 'global-config': config }]
      case 'modifyagent':
        return ['PUT', `?agentName=${encodeURIComponent(agent)}`, 'agent', { name, 'global-config': config }]
      case 'addmastertemplate':
        return ['POST', '', 'masterTemplate', { name, 'global-config': config }]
      case 'modifymastertemplate':
        return ['PUT', '?masterTemplateName=t1', 'masterTemplate', { name, 'global-config': config }]
      case 'addsubtemplate':
        return ['POST', '', 'subTemplate', { name }]
      case 'modifysubtemplate':
        return ['PUT', '?subTemplateName=s1', 'subTemplate', { name }]
      case 'setcustomlabel':
        return ['POST', '', 'label', { name, value: 'v' }]
    }
  })()
  return {
    method,
    url: `${pool.appPath}/restservice/${operation}${query}`,
    headers: { REST_USER: pool.user, REST_PASSWORD: pool.password, accept: 'application/json', 'content-type': asXml ? 'application/xml' : 'application/json' },
    payload: asXml ? xmlBody(root, body) : JSON.stringify(body),
    operation,
    family: 'bad-name'
  }
}

export function hostileNameRequest(pool: Pool): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      operation: fc.constantFrom(...NAMING),
      agent: fc.constantFrom(...pool.names),
      name: fc.oneof({ weight: 4, arbitrary: badName }, { weight: 1, arbitrary: goodName }),
      asXml: fc.boolean()
    })
    .map(({ operation, agent, name, asXml }) => namingRequest(pool, operation, name, asXml, agent))
}

// ---- huge URLs ----------------------------------------------------------------------------

const HUGE_SHAPES = ['agentinfo-query', 'agentinfo-list', 'path', 'path-parameter', 'admin-query', 'addagent-body'] as const
type HugeShape = (typeof HUGE_SHAPES)[number]

/** A request of about `size` bytes of URL (or body), with the given (missing or wrong) credentials. */
function hugeRequest(pool: Pool, shape: HugeShape, size: number, credentials: Record<string, string>): FuzzRequest {
  const rest = `${pool.appPath}/restservice`
  const [method, url, operation, payload]: [string, string, string, string?] = (() => {
    switch (shape) {
      case 'agentinfo-query':
        return ['GET', `${rest}/agentinfo.json?agentname=${'a'.repeat(size)}`, 'agentinfo']
      case 'agentinfo-list':
        return ['GET', `${rest}/agentinfo.xml?agentname=${'a,'.repeat(size / 2)}`, 'agentinfo']
      case 'path':
        return ['GET', `${rest}/${'a'.repeat(size)}`, '']
      case 'path-parameter':
        return ['GET', `${rest}/viewagentortemplate/${'a'.repeat(size)}`, 'viewagentortemplate']
      case 'admin-query':
        return ['GET', `/__admin/requests?operation=${'a'.repeat(size)}`, '']
      case 'addagent-body':
        return ['POST', `${rest}/addagent`, 'addagent', JSON.stringify({ name: 'a'.repeat(size), 'global-config': {} })]
    }
  })()
  return {
    method,
    url,
    headers: { ...credentials, accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    operation,
    family: 'huge-url',
    ...(payload === undefined ? {} : { payload })
  }
}

export function hugeUrlRequest(pool: Pool): fc.Arbitrary<FuzzRequest> {
  const credentials = fc.constantFrom<Record<string, string>>({}, { REST_USER: pool.user }, { REST_USER: pool.user, REST_PASSWORD: 'wrong' })
  return fc
    .record({ shape: fc.constantFrom(...HUGE_SHAPES), size: fc.integer({ min: MEGABYTE, max: MEGABYTE + 1000 }), credentials })
    .map(({ shape, size, credentials }) => hugeRequest(pool, shape, size, credentials))
}

// ---- scenario bombs -----------------------------------------------------------------------

/** The fuzz app's body limit is 64 KiB; the deepest bodies stay just under it. */
const MAX_DEPTH = 30_000

/** Billion laughs in YAML: `levels` anchors, each a list of `fanout` aliases of the one before. */
function aliasBomb(levels: number, fanout: number): string {
  const lines = ['bomb0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]']
  for (let level = 1; level < levels; level++) lines.push(`bomb${level}: &a${level} [${new Array(fanout).fill(`*a${level - 1}`).join(', ')}]`)
  return `${lines.join('\n')}\n`
}

/** A mapping nested by indentation: `depth` levels take depth²/2 bytes, so this stays shallow. */
function indentedMappings(depth: number): string {
  return `${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`
}

export function scenarioBombRequest(pool: Pool): fc.Arbitrary<FuzzRequest> {
  // Half of the deep ones at the reported depth (10,000), whose second upload killed the process.
  const deep = fc.oneof(fc.constant(10_000), fc.integer({ min: 1000, max: MAX_DEPTH }))
  const text = fc.oneof(
    deep.map((n) => '['.repeat(n) + ']'.repeat(n)),
    deep.map((n) => '['.repeat(n)),
    deep.map((n) => `${'{a: '.repeat(n / 2)}1${'}'.repeat(n / 2)}`),
    deep.map((n) => `${'- '.repeat(n)}x\n`),
    deep.map((n) => `fleet: ${'['.repeat(n)}${']'.repeat(n)}\n`),
    fc.integer({ min: 100, max: 350 }).map(indentedMappings),
    fc.tuple(fc.integer({ min: 3, max: 12 }), fc.integer({ min: 2, max: 10 })).map(([levels, fanout]) => aliasBomb(levels, fanout)),
    // The same bomb through merge keys (`<<`), which copy whole mappings.
    fc.integer({ min: 3, max: 10 }).map((levels) => `m0: &m0 {a: 1, b: 2}\n${Array.from({ length: levels }, (_, i) => `m${i + 1}: &m${i + 1} {<<: [*m${i}, *m${i}], k${i}: 1}`).join('\n')}\n`)
  )
  return fc
    .record({
      text,
      type: fc.constantFrom('application/yaml', 'text/yaml', 'application/json'),
      credentials: fc.oneof({ weight: 9, arbitrary: fc.constant({ REST_USER: pool.user, REST_PASSWORD: pool.password }) }, { weight: 1, arbitrary: fc.constant({}) })
    })
    .map(({ text, type, credentials }) => scenarioRequest(text, type, credentials))
}

function scenarioRequest(text: string, type: string, credentials: Record<string, string>): FuzzRequest {
  return { method: 'PUT', url: '/__admin/scenario', headers: { ...credentials, 'content-type': type }, payload: text, operation: '', family: 'scenario-bomb' }
}

// ---- the opening ----------------------------------------------------------------------------

/**
 * The attacks as reported, sent first in every run: whether a parser fails depends on what ran
 * before it (the 10,000-deep upload killed a fresh process at its second try), so the exact
 * sequence is not left to the draw.
 */
export function openingRequests(pool: Pool): FuzzRequest[] {
  const auth = { REST_USER: pool.user, REST_PASSWORD: pool.password }
  const deepFlow = '['.repeat(10_000) + ']'.repeat(10_000)
  const deepBlock = `${'- '.repeat(10_000)}x\n`
  const agent = pool.names[0]
  return [
    scenarioRequest(deepFlow, 'application/yaml', auth),
    scenarioRequest(deepFlow, 'application/yaml', auth),
    scenarioRequest(deepBlock, 'text/yaml', auth),
    scenarioRequest(deepBlock, 'text/yaml', auth),
    scenarioRequest(aliasBomb(10, 10), 'application/yaml', auth),
    scenarioRequest(aliasBomb(10, 10), 'application/json', {}),
    hugeRequest(pool, 'agentinfo-query', MEGABYTE, {}),
    hugeRequest(pool, 'agentinfo-query', MEGABYTE, {}),
    hugeRequest(pool, 'addagent-body', MEGABYTE, {}),
    namingRequest(pool, 'addagent', 'web,01', false, agent),
    namingRequest(pool, 'addagent', ' web01', true, agent),
    namingRequest(pool, 'addagent', 'web\u000001', false, agent),
    namingRequest(pool, 'addagent', 'web\ud80001', false, agent),
    namingRequest(pool, 'modifyagent', 'web01\t', true, agent),
    namingRequest(pool, 'addsubtemplate', 'a,b', true, agent),
    namingRequest(pool, 'setcustomlabel', 'rack\u007f', false, agent)
  ]
}
