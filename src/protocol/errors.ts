/**
 * The one catalogue of errors the REST interface answers with. Every 4xx body the simulator
 * sends is built from an entry here: a stable code (match on it, never on the text), the HTTP
 * status, and a message template that says what was wrong and how to fix it.
 *
 * docs/protocol.md lists every code; test/http/error-catalogue.test.ts keeps the two in step.
 */
import { SUFFIX_OPERATIONS } from './operations.js'

/** Which part of the request a parameter lives in, for messages. */
export type Where = 'query parameter' | 'body field' | 'request body'

interface Entry<P> {
  status: number
  message: (params: P) => string
}

function entry<P = Record<string, never>>(status: number, message: (params: P) => string): Entry<P> {
  return { status, message }
}

/** Values a message names, at most; the rest are counted. */
const LISTED_VALUES = 10
/** Characters of one value a message shows, at most. */
const LISTED_CHARS = 200

/** Values of fleetsim's own quoted for a message, every one: the allowed values, the library's scenarios, the fault rules. */
const list = (items: readonly unknown[]): string => items.map((item) => JSON.stringify(item)).join(', ')

/** A parser's message as the middle of a sentence: its own final period dropped (`… instead of closing tag 'a'.`). */
const sentence = (text: string): string => text.trim().replace(/\.+$/, '')

/**
 * One value a client sent (a path, a header, a name), quoted for a message and cut at
 * LISTED_CHARS: a 60 kB Accept header came back whole in its 406.
 */
export function sent(value: unknown): string {
  return echoedName(JSON.stringify(value))
}

/**
 * A name the client wrote, shown back as it is (an unknown operation's, as an envelope's
 * servicename) and cut at LISTED_CHARS, as `sent` cuts: a 1 MB path came back whole.
 */
export function echoedName(text: string): string {
  return text.length > LISTED_CHARS ? `${text.slice(0, LISTED_CHARS)}…` : text
}

/** What a request sent under a name close to the one it lacks: parameter names are exact, case included. */
function nearName(sentName: string | undefined, meant: string): string {
  return sentName === undefined ? '' : ` The request has ${sent(sentName)}: did you mean "${meant}"? Parameter names are spelled exactly, case included.`
}

/**
 * Values a client sent, quoted for a message: at most LISTED_VALUES, each cut at LISTED_CHARS,
 * the rest counted. A client that asks for 90,000 unknown names gets a message of a few hundred
 * bytes, not the 1.3 MB of its own names back.
 */
const listSent = (given: readonly unknown[]): string => {
  // Each value once, however often the request repeated it (agentUuids=a,a,a).
  const items = [...new Set(given)]
  const shown = items.slice(0, LISTED_VALUES).map(sent)
  return items.length > LISTED_VALUES ? `${shown.join(', ')} and ${items.length - LISTED_VALUES} more` : shown.join(', ')
}

/**
 * A 404 under `<app-path>/restservice/` (`servicePath`), by what the path holds: no operation
 * at all; a name that is no operation (`nearest`: the one it is a plausible typo of, written
 * with the client's suffix where that operation takes one); an operation written with a
 * suffix it does not take; an operation followed by more path (a trailing slash, a segment).
 */
export type UnknownOperation =
  | { case: 'none'; servicePath: string }
  | { case: 'unknown'; written: string; servicePath: string; nearest?: string }
  | { case: 'suffix'; operation: string; servicePath: string }
  | { case: 'subpath'; operation: string; path: string; servicePath: string }

function unknownOperation(p: UnknownOperation): string {
  switch (p.case) {
    case 'none':
      return `The path names no operation: call ${p.servicePath}<operation>, e.g. ${p.servicePath}appinfo.json; GET /openapi.json lists the operations.`
    case 'unknown':
      return p.nearest === undefined
        ? `Unknown operation ${sent(p.written)}: the operations live at ${p.servicePath}<operation>; GET /openapi.json lists them.`
        : `Unknown operation ${sent(p.written)}: did you mean ${p.nearest}? (GET /openapi.json lists the operations.)`
    case 'suffix':
      return `Operation "${p.operation}" takes no .json/.xml suffix (only ${SUFFIX_OPERATIONS.join(', ')} do): call ${p.servicePath}${p.operation} and name the format with the accept header.`
    case 'subpath':
      return `Nothing is served at ${sent(p.path)}: operation "${p.operation}" is at ${p.servicePath}${p.operation}, with its parameters in the query string.`
  }
}

export const ERRORS = {
  // `problem`: what credentialProblem (credential-problem.ts) found in the request.
  E_UNAUTHORIZED: entry<{ problem: string }>(
    401,
    (p) => `Missing or wrong credentials (${p.problem}): send the headers REST_USER and REST_PASSWORD with a valid user name and password.`
  ),
  // Under <app-path>/restservice/: which case src/http/not-found.ts found (UnknownOperation).
  E_UNKNOWN_OPERATION: entry<UnknownOperation>(404, unknownOperation),
  // Outside <app-path>/restservice/: `instead` is the path the client probably meant.
  E_UNKNOWN_PATH: entry<{ path: string; appPath: string; instead?: string; switchedOff?: string }>(
    404,
    (p) =>
      p.switchedOff !== undefined
        ? `Nothing is served at ${sent(p.path)}: this simulator was started with ${p.switchedOff}; start it without that flag to serve it.`
        : `Nothing is served at ${sent(p.path)}: the operations live under ${p.appPath}/restservice/ (this simulator's --app-path is ${p.appPath}); ` +
          (p.instead === undefined ? `e.g. GET ${p.appPath}/restservice/appinfo.json, and GET /openapi.json lists them.` : `call ${p.instead}.`)
  ),
  E_METHOD_NOT_ALLOWED: entry<{ operation: string; method: string; allowed: string }>(
    405,
    (p) => `Operation "${p.operation}" does not accept ${p.method}: use ${p.allowed}.`
  ),
  E_PATH_METHOD_NOT_ALLOWED: entry<{ path: string; method: string; allowed: readonly string[] }>(
    405,
    (p) => `${sent(p.path)} is not served with ${p.method}: use ${p.allowed.length > 1 ? `${p.allowed.slice(0, -1).join(', ')} or ${p.allowed[p.allowed.length - 1]}` : p.allowed[0]}.`
  ),
  // CONNECT never reaches the app: src/http/client-errors.ts answers it.
  E_CONNECT_NOT_ALLOWED: entry<{ target: string; appPath: string }>(
    405,
    (p) =>
      `CONNECT ${sent(p.target)} asks for a tunnel to another host, as a proxy opens, and fleetsim is no proxy: it serves the agent manager's operations itself. ` +
      `Send the requests to it directly, e.g. GET ${p.appPath}/restservice/appinfo.json (if a proxy setting such as https_proxy names this server, add its address to no_proxy).`
  ),
  E_NOT_ACCEPTABLE: entry<{ accept: string }>(
    406,
    (p) => `Cannot answer in any type of Accept ${sent(p.accept)}: accept application/json or application/xml, or use the .json/.xml suffix where the operation has one.`
  ),
  // `expected`: what the route takes, where it is not JSON or XML (its config's bodyTypes: the console's login form).
  E_UNSUPPORTED_MEDIA_TYPE: entry<{ contentType: string; expected?: string }>(
    415,
    (p) => {
      const wanted = p.expected ?? 'application/json or application/xml'
      return p.contentType === ''
        ? `The body comes without a Content-Type: send it as ${wanted}, and say so in Content-Type.`
        : `Content-Type ${sent(p.contentType)} is not supported: send the body as ${wanted}.`
    }
  ),
  E_BODY_TOO_LARGE: entry<{ limit: number }>(
    413,
    (p) => `The request body is larger than the limit of ${p.limit} bytes: send a smaller body.`
  ),
  E_QUERY_TOO_LONG: entry<{ length: number; limit: number }>(
    414,
    (p) => `The query string has ${p.length} bytes, more than the limit of ${p.limit}: split the request into smaller ones (fewer agentUuids per request).`
  ),
  // `fields`: the request has more header fields than this, the most fleetsim reads (src/http/limits.ts); else the head is too large in bytes.
  E_HEADERS_TOO_LARGE: entry<{ fields?: number }>(
    431,
    (p) =>
      p.fields === undefined
        ? 'The request line and headers are larger than the limit (--max-query-length plus 16 KiB): send a shorter query or fewer headers.'
        : `The request has more than ${p.fields} header fields, the most this server reads (the fields past the ${p.fields}th, credentials included, would be lost): send fewer headers.`
  ),
  E_REQUEST_TIMEOUT: entry(
    408,
    () => 'The request was not received in time (--headers-timeout, --request-timeout): send the whole request at once.'
  ),
  E_TOO_MANY_CONNECTIONS: entry<{ limit: number }>(
    503,
    (p) => `The simulator already serves ${p.limit} connections, its limit: retry after the time in Retry-After, or reuse fewer connections.`
  ),
  // src/http/unsent-answers.ts: `held` bytes of answers wait for their clients; this answer has `bytes`.
  E_UNREAD_ANSWERS: entry<{ held: number; bytes: number; limit: number }>(
    503,
    (p) =>
      `The simulator holds ${p.held} bytes of answers its clients have not read yet, and this answer of ${p.bytes} bytes would take them past the limit of ${p.limit} (--unsent-answers-max-bytes): ` +
      'read the answers you ask for (a connection that asks and does not read holds its answer until --send-timeout), then retry after the time in Retry-After.'
  ),
  E_FLEET_RESET: entry<Record<string, never>>(
    503,
    () => 'The fleet was reset (POST /__admin/reset, or a scenario loaded or stopped) while this list was being made: ask for it again, and get the new fleet\'s.'
  ),
  // `http2`: the client began with HTTP/2's preface (h2c with prior knowledge), answered with a GOAWAY.
  E_HTTPS_REQUIRED: entry<{ url: string; http2?: boolean }>(
    400,
    (p) =>
      p.http2 === true
        ? `This port speaks HTTPS with HTTP/1.1, not plain HTTP/2 (the connection began with PRI * HTTP/2.0): use ${p.url} over HTTP/1.1 (and trust the fleetsim CA, tls/ca.pem in its --data-dir).`
        : `This port speaks HTTPS, not plain HTTP: use ${p.url} (and trust the fleetsim CA, tls/ca.pem in its --data-dir).`
  ),
  // src/http/proxy-protocol.ts: `from` is the address that sent the header (the load balancer); `httpsUrl` when plain HTTP followed it on the HTTPS port.
  E_PROXY_PROTOCOL: entry<{ version: 1 | 2; from?: string; httpsUrl?: string }>(
    400,
    (p) =>
      `The connection began with a PROXY protocol v${p.version} header${p.from === undefined ? '' : ` (from ${p.from})`}, as a load balancer with the PROXY protocol on sends it, and fleetsim does not read the PROXY protocol: ` +
      "turn it off for fleetsim in the load balancer (HAProxy: drop send-proxy / send-proxy-v2 from the server line; AWS NLB: set the target group's proxy_protocol_v2.enabled to false), or connect to fleetsim directly." +
      (p.httpsUrl === undefined ? '' : ` This port also speaks HTTPS, not plain HTTP: use ${p.httpsUrl}.`)
  ),
  E_DUPLICATE_HOST: entry<{ count: number }>(
    400,
    (p) => `The request has ${p.count} Host headers: send exactly one.`
  ),
  // `preface`: the connection began with HTTP/2's preface (prior knowledge), answered with a GOAWAY (src/http/http2-refusal.ts).
  E_HTTP_VERSION: entry<{ version: string; preface?: boolean }>(
    505,
    (p) =>
      p.preface === true
        ? 'The connection began with the HTTP/2 preface (PRI * HTTP/2.0: HTTP/2 with prior knowledge), and this server speaks HTTP/1.1 only: send the requests as HTTP/1.1 (curl: --http1.1 instead of --http2-prior-knowledge; other clients: turn HTTP/2 prior knowledge, or h2c, off).'
        : `The HTTP version of the request line (${p.version}) is not supported: send the request as HTTP/1.1 (or HTTP/1.0).`
  ),
  // src/http/expect-continue.ts: an Expect header other than 100-continue.
  E_EXPECTATION_FAILED: entry<{ expect: string }>(
    417,
    (p) => `The Expect header ${sent(p.expect)} names an expectation this server does not meet (it meets only "100-continue"): drop the header, or send Expect: 100-continue.`
  ),
  E_BODY_ENCODING: entry<{ at: number | undefined }>(
    400,
    (p) => `The request body is not valid UTF-8${p.at === undefined ? '' : ` (from byte ${p.at})`}: send it as UTF-8, or declare the charset it is in (charset=iso-8859-1).`
  ),
  E_UNSUPPORTED_CONTENT_ENCODING: entry<{ encoding: string }>(
    415,
    (p) => `The request body comes with Content-Encoding ${sent(p.encoding)}, which this server does not decode: send the body uncompressed, without a Content-Encoding header.`
  ),
  E_UNSUPPORTED_CHARSET: entry<{ charset: string; supported: readonly string[] }>(
    415,
    (p) => `The body's charset ${sent(p.charset)} is not one this server reads: send it as ${p.supported.join(' or ')}.`
  ),
  E_MALFORMED_JSON: entry<{ detail: string }>(
    400,
    (p) => `The request body is not valid JSON: ${sentence(p.detail)}. Fix the syntax, or send the Content-Type that matches the body.`
  ),
  E_BODY_TOO_DEEP: entry<{ most: number; /** the character, from 1 */ at: number; /** what nests: JSON's arrays and objects, XML's elements */ what: 'arrays and objects' | 'elements' }>(
    400,
    (p) =>
      `The request body nests ${p.what} more than ${p.most} deep (the ${p.most + 1}th opens at character ${p.at}). ` +
      'No body of this interface nests more than a few levels: send the fields the operation takes (docs/protocol.md).'
  ),
  E_MALFORMED_XML: entry<{ detail: string }>(
    400,
    (p) => `The request body is not well-formed XML: ${sentence(p.detail)}. Fix the syntax, or send the Content-Type that matches the body.`
  ),
  E_XML_NAMESPACE: entry<{ element: string; local: string }>(
    400,
    (p) =>
      `XML elements with a namespace prefix are not read: ${sent(`<${p.element}>`)} is one; send the elements without a prefix (${sent(`<${p.local}>`)}), as the spec's examples are. A namespace declared on the root element (xmlns="...") is fine.`
  ),
  E_XML_ATTRIBUTE: entry<{ element: string; attribute: string; local: string }>(
    400,
    (p) =>
      `XML attributes carry no values in a body: the attribute ${sent(p.attribute)} of <${echoedName(p.element)}> is one; send it as a child element, ` +
      `<${echoedName(p.local)}>…</${echoedName(p.local)}>, as the spec's examples do. Only a <field> below the root takes an attribute, ` +
      'its name (<field name="the service">); namespace declarations (xmlns), xml: attributes and XML Schema instance ones (xsi:nil) are fine.'
  ),
  E_XML_RESERVED_NAME: entry<{ name: string; field?: boolean }>(
    400,
    (p) =>
      `The XML body has ${p.field === true ? `a field named ${sent(p.name)} (<field name=${sent(p.name)}>)` : `an element named ${sent(p.name)}`}: ` +
      `__proto__, constructor and prototype are refused as ${p.field === true ? '' : 'element '}names (they could reach an object's prototype, and no body of this interface has them); leave it out.`
  ),
  E_XML_DOCTYPE: entry(
    400,
    () => 'XML bodies must not contain a DOCTYPE declaration (entity processing is off): remove the <!DOCTYPE ...> part.'
  ),
  // `sentAs`: the types a body other than a JSON or XML object is sent as (a scenario's YAML).
  E_MISSING_BODY: entry<{ operation: string; body: string; sentAs?: string }>(
    400,
    (p) =>
      p.sentAs === undefined
        ? `Operation "${p.operation}" needs a request body (the ${p.body} object) in JSON or XML.`
        : `Operation "${p.operation}" needs a request body: the ${p.body}, as ${p.sentAs}.`
  ),
  E_MISSING_PARAMETER: entry<{ name: string; near?: string }>(
    400,
    (p) => `Query parameter "${p.name}" is required: add ?${p.name}=... to the request.${nearName(p.near, p.name)}`
  ),
  E_MISSING_FIELD: entry<{ name: string }>(
    400,
    (p) => `Body field "${p.name}" is required: add it to the request body.`
  ),
  E_WRONG_TYPE: entry<{ where: Where; name: string; expected: string; got: string }>(
    400,
    // The body itself has no name (`"hello"` where an object goes): "The request body must be an object".
    (p) => `The ${p.where}${p.name === '' ? '' : ` "${p.name}"`} must be ${p.expected}, got ${p.got}.`
  ),
  E_NOT_IN_ENUM: entry<{ where: Where; name: string; allowed: readonly unknown[]; got: string; sameButCase?: string; near?: string }>(
    400,
    (p) =>
      `The ${p.where} "${p.name}" must be one of ${list(p.allowed)}, got ${p.got}` +
      (p.sameButCase !== undefined
        ? ` (the values are case-sensitive: send ${JSON.stringify(p.sameButCase)})`
        : p.near !== undefined
          ? ` (did you mean ${JSON.stringify(p.near)}?)`
          : '') +
      '.'
  ),
  E_INVALID_VALUE: entry<{ where: Where; name: string; rule: string; got: string }>(
    400,
    (p) => `The ${p.where}${p.name === '' ? '' : ` "${p.name}"`} ${p.rule}, got ${p.got}.`
  ),
  E_TOO_MANY_ITEMS: entry<{ name: string; limit: number }>(
    400,
    (p) => `The query parameter "${p.name}" lists more than ${p.limit} items: split the request into smaller ones.`
  ),
  // Stored-data limits (src/manager/limits.ts, docs/limits.md): the message names the limit,
  // the value and the flag that raises it.
  E_VALUE_TOO_LARGE: entry<{ where: Where; name: string; what: string; bytes: number; limit: number; flag: string }>(
    400,
    (p) => `The ${p.where} "${p.name}" (${p.what}) has ${p.bytes} bytes (UTF-8), more than the limit of ${p.limit}: send a shorter one, or start fleetsim with a higher --${p.flag}.`
  ),
  E_LIMIT_REACHED: entry<{ holder: string; count: number; what: string; limit: number; flag: string; fix: string }>(
    409,
    (p) => `${p.holder} already has ${p.count} ${p.what}, and --${p.flag} allows ${p.limit}: ${p.fix}.`
  ),
  E_EXCLUSIVE_PARAMETERS: entry<{ first: string; second: string }>(
    400,
    (p) => `The query parameters "${p.first}" and "${p.second}" cannot be combined: send one of them.`
  ),
  E_AGENTINFO_NO_PARAMETER: entry<{ near?: { sent: string; meant: string } }>(
    400,
    (p) =>
      'agentinfo needs at least one query parameter: agentname, agentstate or agentwithmodules (agentwithmodules alone lists every agent).' +
      (p.near === undefined ? '' : nearName(p.near.sent, p.near.meant))
  ),
  E_NOTHING_TO_ASSIGN: entry(
    400,
    () => 'assigntemplatetoagent needs templateName, subTemplateNames or both: name the templates to assign.'
  ),
  E_UNKNOWN_AGENT: entry<{ by: 'name' | 'UUID'; values: readonly string[] }>(
    404,
    (p) => `No agent with ${p.by} ${listSent(p.values)}: check the value with agentinfo.`
  ),
  E_UNKNOWN_TEMPLATE: entry<{ kind: 'master' | 'sub'; names: readonly string[] }>(
    404,
    (p) => `No ${p.kind} template named ${listSent(p.names)}: create it with add${p.kind}template first.`
  ),
  E_UNKNOWN_LABEL: entry<{ names: readonly string[] }>(
    404,
    (p) => `No custom label named ${listSent(p.names)}: create it with setcustomlabel first.`
  ),
  E_UNKNOWN_NAME: entry<{ name: string }>(
    404,
    (p) => `No agent or template named ${sent(p.name)}: check the name with agentinfo.`
  ),
  // Built by src/http/names.ts: `name` comes quoted, `problem` names the character and its
  // position, `reason` says what the character would break and how to fix the name.
  E_INVALID_NAME: entry<{ kind: string; name: string; problem: string; reason: string }>(
    400,
    (p) => `The ${p.kind} name ${p.name} ${p.problem}: ${p.reason}.`
  ),
  E_DUPLICATE_NAME: entry<{ name: string; owner: string }>(
    409,
    (p) => `The name ${sent(p.name)} is already used by ${p.owner}: choose another name.`
  ),
  E_NAME_RESERVED: entry<{ name: string; uuid: string }>(
    409,
    (p) =>
      `The name ${sent(p.name)} is kept for the deleted agent ${p.uuid}: it was deleted without revokeCert, so it rejoins under this name. Choose another name, or wait until it is back and delete it with revokeCert=true.`
  ),
  E_UNKNOWN_CA_FINGERPRINT: entry<{ got: string; expected: string }>(
    400,
    (p) => `global-config.ca-fingerprint ${sent(p.got)} is not the manager's certificate authority: use ${p.expected} (from certificateinfo).`
  ),
  E_UNKNOWN_CERT_FINGERPRINT: entry<{ got: string; omit: string }>(
    400,
    (p) => `global-config.cert-fingerprint ${sent(p.got)} names no certificate: use a fingerprint from certificateinfo, or ${p.omit}.`
  ),
  E_CA_NOT_ASSIGNABLE: entry<{ got: string; omit: string }>(
    400,
    (p) => `global-config.cert-fingerprint ${sent(p.got)} is the certificate authority's, which issues agents' certificates and is none itself: use the fingerprint of a certificate of type CERT from certificateinfo, or ${p.omit}.`
  ),
  E_CERTIFICATE_REVOKED: entry<{ got: string; omit: string }>(
    400,
    (p) => `The certificate ${sent(p.got)} is revoked: assign a valid certificate, or ${p.omit}.`
  ),
  E_CERTIFICATE_IN_USE: entry<{ got: string; agent: string; omit: string }>(
    409,
    (p) => `The certificate ${sent(p.got)} belongs to the agent ${sent(p.agent)}: a certificate identifies one agent. Assign a certificate no other agent has, or ${p.omit}.`
  ),
  E_BAD_REQUEST: entry<{ detail: string }>(400, (p) => `The request could not be read (${p.detail}).`),
  // Strict mode (--strict): one code per rule of src/journal/rules.ts; the message names the rule.
  E_STRICT_UNKNOWN_PARAMETER: entry<{ detail: string }>(400, (p) => `Strict mode, rule unknown-parameter: ${p.detail}; send only the parameters the operation defines (docs/protocol.md).`),
  E_STRICT_FIELD_IN_QUERY: entry<{ detail: string }>(400, (p) => `Strict mode, rule field-in-query: ${p.detail}; send body fields in the request body.`),
  E_STRICT_PARAMETER_IN_BODY: entry<{ detail: string }>(400, (p) => `Strict mode, rule parameter-in-body: ${p.detail}; send scalar and list parameters in the query string.`),
  E_STRICT_UNEXPECTED_BODY: entry<{ detail: string }>(400, (p) => `Strict mode, rule unexpected-body: ${p.detail}; send this operation without a body.`),
  E_STRICT_LIST_REPEATED: entry<{ detail: string }>(400, (p) => `Strict mode, rule list-repeated: ${p.detail}; give a list parameter once, comma-delimited (a,b); only agentstate may repeat.`),
  E_STRICT_LIST_SYNTAX: entry<{ detail: string }>(400, (p) => `Strict mode, rule list-syntax: ${p.detail}; write lists comma-delimited (a,b), not as JSON arrays or name[].`),
  E_STRICT_EMPTY_LIST_ITEM: entry<{ detail: string }>(400, (p) => `Strict mode, rule empty-list-item: ${p.detail}; remove the empty items (a,,b or a trailing comma).`),
  E_STRICT_SCALAR_REPEATED: entry<{ detail: string }>(400, (p) => `Strict mode, rule scalar-repeated: ${p.detail}; give a single-valued parameter once.`),
  E_STRICT_BOOLEAN_SYNTAX: entry<{ detail: string }>(400, (p) => `Strict mode, rule boolean-syntax: ${p.detail}; write booleans as true or false.`),
  E_STRICT_MISSING_ACCEPT: entry<{ detail: string }>(400, (p) => `Strict mode, rule missing-accept: ${p.detail}; send accept: application/json or application/xml, or use the .json/.xml suffix where the operation has one.`),
  E_STRICT_SUFFIX_ACCEPT_CONFLICT: entry<{ detail: string }>(400, (p) => `Strict mode, rule suffix-accept-conflict: ${p.detail}; drop the accept header or make it name the suffix's format.`),
  E_STRICT_LENIENT_CONVERSION: entry<{ detail: string }>(400, (p) => `Strict mode, rule lenient-conversion: ${p.detail}; send numbers as numbers and booleans as true or false.`),
  E_STRICT_QUERY_ENCODING: entry<{ detail: string }>(400, (p) => `Strict mode, rule query-encoding: ${p.detail}.`),
  E_STRICT_CREDENTIALS_IN_QUERY: entry<{ detail: string }>(400, (p) => `Strict mode, rule credentials-in-query: ${p.detail}; send credentials only in the REST_USER and REST_PASSWORD headers.`),
  E_INVALID_SCENARIO: entry<{ problem: string }>(
    400,
    (p) => `${p.problem} (fix this and send the scenario again; \`fleetsim scenario validate FILE\` checks a file offline).`
  ),
  // `whose`: the manager's kept templates, renamed through the REST operations; or the scenario's own master templates, renamed in it.
  E_TEMPLATE_NAMES_AGENT: entry<{ templates: readonly string[]; whose: 'manager' | 'scenario'; doing: string }>(
    409,
    (p) => {
      const one = p.templates.length === 1
      const named = `${one ? 'has' : 'have'} the name of an agent the new fleet starts with or its timeline joins, and names are unique across agents and templates`
      return p.whose === 'manager'
        ? `The manager's template${one ? '' : 's'} ${listSent(p.templates)} ${named}: rename ${one ? 'it' : 'them'} (modifymastertemplate, modifysubtemplate), then ${p.doing} again.`
        : `The scenario's master template${one ? '' : 's'} ${listSent(p.templates)} ${named}: rename ${one ? 'it' : 'them'} in the scenario.`
    }
  ),
  E_SCENARIO_UNSUPPORTED: entry<{ detail: string }>(
    400,
    (p) => `The scenario is valid but cannot run: ${p.detail}.`
  ),
  // `what`: a scenario, or one of its fault rules (POST /__admin/faults).
  E_SCENARIO_MEDIA_TYPE: entry<{ contentType: string; what: string }>(
    415,
    (p) => `Content-Type ${sent(p.contentType)} is not a type of the scenario language: send the ${p.what} as application/yaml, text/yaml or application/json.`
  ),
  E_NO_SCENARIO: entry(
    404,
    () => 'No scenario is running (the default fleet is): load one with PUT /__admin/scenario or start with --scenario FILE.'
  ),
  E_UNKNOWN_SCENARIO: entry<{ name: string; nearest?: string; names: readonly string[] }>(
    404,
    (p) =>
      `No scenario named ${sent(p.name)} in the library` +
      (p.nearest === undefined ? '.' : `: did you mean ${sent(p.nearest)}?`) +
      ` The library has ${list(p.names)} (GET /__admin/scenarios); load any other scenario with PUT /__admin/scenario.`
  ),
  E_UNKNOWN_JOURNAL_ENTRY: entry<{ id: string; held: { first: number; last: number } | null }>(
    404,
    (p) =>
      `No journal entry has the id ${sent(p.id)}: ` +
      (p.held === null ? 'the journal is empty' : `the journal holds the entries ${p.held.first} to ${p.held.last}`) +
      ' (it keeps the newest --journal-size entries; GET /__admin/requests lists them).'
  ),
  E_INVALID_FAULT_RULE: entry<{ problem: string }>(
    400,
    (p) => `${p.problem} (fix this and send the rule again: a rule is written as an entry of a scenario's faults, see docs/scenarios.md#faults).`
  ),
  E_UNKNOWN_FAULT_RULE: entry<{ id: string; ids: readonly string[] }>(
    404,
    (p) =>
      `No fault rule has the id ${sent(p.id)}: ` +
      (p.ids.length === 0 ? 'no rule is in force.' : `the rules in force are ${list(p.ids)} (GET /__admin/faults lists them).`)
  ),
  E_TOO_MANY_FAULT_RULES: entry<{ limit: number }>(
    409,
    (p) => `The admin API already holds ${p.limit} added fault rules, the most it keeps: remove one with DELETE /__admin/faults/<id> first.`
  ),
  E_UNKNOWN_ADMIN_PATH: entry<{ method: string; path: string }>(
    404,
    (p) => `No admin endpoint ${p.method} ${sent(p.path)}: see docs/admin.md for the list (health, clock, clock/advance, fleet, scenario, scenarios, scenarios/<name>, scenarios/<name>/start, reset, agents/<name>/override, agents/<name>/fail-next-reconnect, faults, faults/<id>, snapshot, requests, requests/<id>, report).`
  ),
  E_NO_STATE_FILE: entry(
    409,
    () => 'There is no state file to save to: start fleetsim with --state-file PATH to save and resume the simulation.'
  ),
  E_STATE_SAVE_FAILED: entry<{ path: string; cause: string }>(
    500,
    (p) => `Could not save the simulation to ${p.path} (${p.cause}); the file keeps its previous content: fix the cause (disk space, permissions, the path) and save again.`
  ),
  E_CONSOLE_UNAUTHORIZED: entry(
    401,
    () => 'Not logged in to the console: log in at /console/login, or send the admin user and password with HTTP Basic authentication.'
  ),
  E_CONSOLE_CROSS_SITE: entry<{ method: string; path: string; reason: 'header' | 'origin' }>(
    403,
    (p) =>
      p.reason === 'header'
        ? `${p.method} ${p.path} changes the simulation, so it must carry the header "X-Fleetsim-Console: 1" (the console's pages send it; a form or a page on another site cannot).`
        : `${p.method} ${p.path} came from a page of another site (its Origin is not this server): the console takes changes only from its own pages.`
  ),
  E_UNKNOWN_CONSOLE_PATH: entry<{ method: string; path: string; pages: readonly string[] }>(
    404,
    (p) => `Nothing in the console at ${p.method} ${sent(p.path)}: its pages are ${p.pages.join(', ')}; docs/console.md lists its API.`
  ),
  E_CONSOLE_PATH_OUTSIDE: entry<{ path: string; target: string }>(
    404,
    (p) => `The console forwards ${sent(p.path)} only within ${p.target}, and this path has a "." or ".." segment that would leave it: name the operation or admin path itself.`
  ),
  E_FAULT_INJECTED: entry<{ message: string }>(503, (p) => p.message),
  E_INTERNAL: entry(500, () => 'The simulator failed to answer this request; this is a bug in fleetsim, please report it.')
} as const

export type ErrorCode = keyof typeof ERRORS
type ParamsOf<C extends ErrorCode> = Parameters<(typeof ERRORS)[C]['message']>[0]

/** An error with a catalogue code; the error handler turns it into the error envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  /** further errors reported in the same envelope (e.g. every failed validation rule) */
  readonly more: ApiError[]

  constructor(code: ErrorCode, message: string, more: ApiError[] = []) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.statusCode = ERRORS[code].status
    this.more = more
  }
}

// Entries without parameters take none; the rest take their typed parameter object.
export function apiError<C extends ErrorCode>(
  code: C,
  ...params: ParamsOf<C> extends Record<string, never> ? [] : [ParamsOf<C>]
): ApiError {
  const message = (ERRORS[code].message as (p: unknown) => string)(params[0] ?? {})
  return new ApiError(code, message)
}

/** JSON-ish rendering of a received value for messages: strings quoted (cut at 200 characters), others as text. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'a list'
  if (value === null) return 'null'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'number') {
    // A JSON number is read as a double: 1e400 as Infinity (JSON.stringify would say null) and
    // 9007199254740993 as ...992, so echoing the value read would misquote the client.
    if (!Number.isFinite(value)) return `a number beyond ±1.8e308, which reads as ${value}`
    // From 1e21 on, a number is written as such (1e+300).
    if (!Number.isSafeInteger(value) && Number.isInteger(value) && Math.abs(value) < 1e21) return `a number past 2^53, which reads only approximately (as ${value})`
  }
  return sent(value)
}
