/**
 * One request sent before a client command does its work, so that a target it cannot use gets
 * one line naming the cause and what to do, instead of every check failing with the same
 * `connect ECONNREFUSED`. The causes: nothing listening, an unknown host, no answer, plain
 * HTTP and HTTPS mixed up, a certificate not trusted, credentials refused, and a wrong path.
 * `fleetsim conformance` probes the operations (`probeOperations`), `fleetsim report` the
 * admin API (`fetchAdmin`, whose probe is the report request itself).
 */
import type { ErrorCode } from '../protocol/errors.js'
import { appPath, baseText, normaliseTarget, serviceUrl } from './base-url.js'
import type { HttpAnswer, HttpRequest } from './http-client.js'
import type { TargetOptions, Trust } from './target-options.js'

/** The application path of the real manager, and fleetsim's default --app-path (a test keeps them in step). */
export const USUAL_APP_PATH = '/manager/mvc'

/** The code of fleetsim's answer to plain HTTP on its HTTPS port (docs/protocol.md). */
const HTTPS_REQUIRED: ErrorCode = 'E_HTTPS_REQUIRED'
/** What nginx and some Java servers answer to plain HTTP on an HTTPS port. */
const PLAIN_HTTP_TO_HTTPS = /plain HTTP request was sent to HTTPS port/i

/** Certificate verification failures, by Node's (OpenSSL's) error code. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'INVALID_CA'
])

export type Probed = { readonly ok: true; readonly answer: HttpAnswer } | { readonly ok: false; readonly problem: string }

/** What a probe asks and how its answer is explained. */
interface Probe {
  readonly request: HttpRequest
  /** the target as the user should type it again, e.g. with the other scheme */
  readonly target: URL
  /** who is expected to listen there, for the refused-connection question */
  readonly listener: 'fleetsim' | 'fleetsim or the manager'
}

/**
 * Whether the conformance suite can run against `options.target`: undefined when the
 * operations answer (whatever they answer: judging that is the checks' work), or the one line
 * saying why not. A wrong application path is told apart by asking the usual one too.
 */
export async function probeOperations(options: TargetOptions): Promise<string | undefined> {
  const base = normaliseTarget(options.target)
  const probed = await send(options, operationsProbe(options, base))
  if (!probed.ok) return probed.problem
  const { status } = probed.answer
  if (status === 401 || status === 403) {
    return `${base.origin} refused user "${options.user}" (${status}): check --user and --password (the manager's REST_USER and REST_PASSWORD; default admin / admin)`
  }
  const tried = serviceUrl(base)
  if (status !== 404) return envelopeProblem(probed.answer, `${tried}appinfo.json`, base)
  if (base.pathname === USUAL_APP_PATH) {
    return `no operations at ${tried} (404): is the application path another one? (fleetsim serve --app-path; on a real manager the path of its web application, ending in /mvc) Or is ${base.origin} no agent manager at all?`
  }
  const usual = new URL(USUAL_APP_PATH, base.origin)
  const there = await send(options, operationsProbe(options, usual))
  const path = appPath(base)
  const what = path === '' ? 'the target has no application path' : `the application path ${path} is wrong`
  if (there.ok && there.answer.status !== 404) return `no operations at ${tried} (404): ${what}; ${baseText(usual)} answers: use --target ${baseText(usual)}`
  // The usual path was tried too: recommending it would send the user round in a circle.
  return `no operations at ${tried} (404), nor at the usual ${serviceUrl(usual)}: is ${base.origin} an agent manager (or fleetsim)? Check the host and port (fleetsim serve listens on 9443), and the application path of the manager's web application`
}

/**
 * Whatever status it has, an answer of the operations is JSON (the spec's envelope, an error or
 * a fault fleetsim injects included; a JSON answer that is wrong is the checks' to judge).
 * Anything else (a web page, plain text) means the target is no manager: the suite (which
 * writes, but for --read-only) is not run against it.
 */
function envelopeProblem(answer: HttpAnswer, url: string, base: URL): string | undefined {
  try {
    const body: unknown = JSON.parse(answer.body)
    if (typeof body === 'object' && body !== null) return undefined
  } catch {
    // not JSON: said below
  }
  const type = answer.headers['content-type']
  const what = `${answer.status}${typeof type === 'string' ? ` ${type.split(';')[0]}` : ''}`
  return `${url} answered ${what}, not JSON: is ${base.origin} an agent manager (or fleetsim)? The suite is not run against it`
}

/**
 * GETs an admin endpoint of a running fleetsim for `fleetsim report`: its answer, or the one
 * line saying why the simulator could not be used (any answer but 401, 403 and 404 is given
 * back for the caller to judge).
 */
export async function fetchAdmin(options: TargetOptions, pathAndQuery: string, accept: string): Promise<Probed> {
  const origin = new URL(new URL(options.target).origin)
  const request = { method: 'GET', url: `${origin.origin}${pathAndQuery}`, headers: credentials(options, accept) }
  const probed = await send(options, { request, target: origin, listener: 'fleetsim' })
  if (!probed.ok) return probed
  const { status } = probed.answer
  if (status === 401 || status === 403) {
    const flags = "fleetsim serve's --admin-user and --admin-password, which default to its --user and --password"
    return { ok: false, problem: `${origin.origin} refused user "${options.user}" (${status}): check --user and --password (${flags})` }
  }
  if (status === 404) {
    const path = pathAndQuery.split('?')[0]
    return { ok: false, problem: `${origin.origin} has no ${path} (404): is it fleetsim? fleetsim report reads a running simulator's request journal, which a real manager does not have` }
  }
  return probed
}

function credentials(options: TargetOptions, accept: string): Record<string, string> {
  return { REST_USER: options.user, REST_PASSWORD: options.password, accept }
}

function operationsProbe(options: TargetOptions, base: URL): Probe {
  const request = { method: 'GET', url: `${serviceUrl(base)}appinfo.json`, headers: credentials(options, 'application/json') }
  return { request, target: base, listener: 'fleetsim or the manager' }
}

/** Sends the probe's request: its answer, or the line explaining why none came (or why it is not one). */
async function send(options: TargetOptions, probe: Probe): Promise<Probed> {
  let answer: HttpAnswer
  try {
    answer = await options.transport(probe.request)
  } catch (error) {
    const other = otherSchemeSuggested(error, probe.target)
    if (other !== undefined) return { ok: false, problem: await schemeMixUp(options, probe, other, error) }
    return { ok: false, problem: explainFailure(error, probe, options.trust) }
  }
  if (probe.target.protocol === 'http:' && refusedAsPlain(answer)) return { ok: false, problem: speaksHttps(probe.target) }
  return { ok: true, answer }
}

/** Whether an answer to plain HTTP says the port speaks HTTPS: fleetsim's 400 (docs/protocol.md), or nginx's and some Java servers'. */
function refusedAsPlain(answer: HttpAnswer): boolean {
  return answer.status === 400 && (answer.body.includes(HTTPS_REQUIRED) || PLAIN_HTTP_TO_HTTPS.test(answer.body))
}

/**
 * The scheme a failure suggests the target speaks instead: plain HTTP reset or hung up on (as a
 * TLS-only server does) or answered with bytes that are no HTTP; HTTPS that read no TLS (`wrong
 * version number`, as from a plain HTTP server) or was reset. Undefined for any other failure.
 */
function otherSchemeSuggested(error: unknown, target: URL): 'http:' | 'https:' | undefined {
  const { code, message } = describe(error)
  const dropped = code === 'ECONNRESET' || /socket hang up/i.test(message)
  // A parse error: bytes that are no HTTP answer, such as a TLS alert (or another protocol's greeting).
  if (target.protocol === 'http:' && (dropped || code.startsWith('HPE_'))) return 'https:'
  if (target.protocol === 'https:' && (dropped || code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(message))) return 'http:'
  return undefined
}

/**
 * The line for a failure that suggests the other scheme, once the same request was sent with it
 * to the same port: a server that is neither (SSH, a database) fails both ways, and advising the
 * other scheme each way round would send the user in a circle.
 * - HTTPS counts as spoken when the retry brought an answer, or failed in the TLS handshake
 *   itself (a certificate refused, a TLS alert such as a client certificate asked for): TLS was
 *   read and answered.
 * - Plain HTTP counts as spoken when the retry brought an answer that is not a refusal of plain
 *   HTTP (fleetsim's `E_HTTPS_REQUIRED`, nginx's 400): such a port speaks HTTPS, and failed for
 *   another reason, which is told as it is.
 */
async function schemeMixUp(options: TargetOptions, probe: Probe, other: 'http:' | 'https:', error: unknown): Promise<string> {
  const { target } = probe
  const url = new URL(probe.request.url)
  // Kept explicit: a URL without a port would be sent to the other scheme's default port.
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port
  url.protocol = other
  url.port = port
  let answer: HttpAnswer | undefined
  let again: unknown
  try {
    answer = await options.transport({ ...probe.request, url: url.href })
  } catch (failure) {
    again = failure
  }
  if (other === 'https:' && (answer !== undefined || tlsSpoken(again))) return speaksHttps(target)
  if (other === 'http:' && answer !== undefined) {
    return refusedAsPlain(answer) ? explainFailure(error, probe, options.trust) : `the target speaks plain HTTP, not HTTPS: use ${withScheme(target, 'http:')}`
  }
  const tried = (e: unknown, scheme: string) => `over ${scheme === 'https:' ? 'HTTPS' : 'plain HTTP'}: ${shortReason(describe(e).message)}`
  return `${target.hostname}:${port} answered neither HTTP nor HTTPS (${tried(error, target.protocol)}; ${tried(again, other)}): is ${probe.listener} listening on this port? (fleetsim serve listens on 9443)`
}

/**
 * Whether a failed HTTPS request got as far as TLS: its certificate refused, or a TLS alert from
 * the server (OpenSSL's `ERR_SSL_…` codes, but `wrong version number`: bytes that were not TLS).
 */
function tlsSpoken(error: unknown): boolean {
  const { code, message } = describe(error)
  if (UNTRUSTED.has(code) || code.startsWith('ERR_TLS_')) return true
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(message)) return false
  return code.startsWith('ERR_SSL_') || /alert/i.test(message)
}

/**
 * A failure's message on one line: OpenSSL's (`write EPROTO 80…:error:0A00010B:SSL
 * routines:ssl3_get_record:wrong version number:../deps/…`) as its reason alone.
 */
function shortReason(message: string): string {
  const openssl = /SSL routines:[^:]*:([^:\n]+)/.exec(message)
  if (openssl !== null) return `TLS ${openssl[1]}`
  return message.split('\n')[0].trim()
}

/** The one line for a request that got no answer. */
function explainFailure(error: unknown, probe: Probe, trust: Trust): string {
  const { code, message } = describe(error)
  const { target } = probe
  const origin = target.origin
  if (code === 'ECONNREFUSED') return `cannot reach ${origin}: connection refused — is ${probe.listener} running, and on this port?`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot reach ${origin}: no such host ${target.hostname} — check the host name in --target`
  if (code === 'ETIMEDOUT') return `cannot reach ${origin}: no answer in time — is the host up, and does a firewall let the port through?`
  if (code === 'E_NO_ANSWER') return `${origin} took the connection but did not answer: ${message} — is it an agent manager, or is it stuck?`
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `cannot reach ${origin}: no route to the host — check the address in --target and the network`
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `the certificate of ${origin} is not issued for ${target.hostname} (${message}): use a host name it names in --target, or --insecure to skip the check`
  }
  if (UNTRUSTED.has(code)) return untrusted(origin, message, trust)
  return `cannot reach ${origin}: ${message}`
}

function untrusted(origin: string, reason: string, trust: Trust): string {
  const head = `the certificate of ${origin} is not trusted`
  const skip = '--insecure to skip the check'
  switch (trust.kind) {
    case 'ca-file':
      return `${head} by the CA in ${trust.path} (${reason}): pass the CA that issued it with --ca FILE, or ${skip}`
    case 'local-ca':
      return `${head} by the CA in ${trust.path} (${reason}): does the simulator use another --data-dir? pass the same --data-dir, or --ca FILE, or ${skip}`
    case 'system':
      if (trust.lookedFor !== undefined) {
        return `${head} (${reason}) and there is no fleetsim CA at ${trust.lookedFor}: pass the simulator's --data-dir, or --ca FILE (its tls/ca.pem), or ${skip}`
      }
      return `${head} (${reason}): pass the CA that issued it with --ca FILE, or ${skip}`
    case 'insecure':
      // Unreachable in practice: --insecure checks no certificate.
      return `${head} (${reason})`
  }
}

function speaksHttps(target: URL): string {
  return `the target speaks HTTPS: use ${withScheme(target, 'https:')}`
}

/** The target with the other scheme, its host, port and path kept: `https://127.0.0.1:9443/manager/mvc`. */
function withScheme(target: URL, scheme: 'http:' | 'https:'): string {
  return `${scheme}//${target.host}${target.pathname === '/' ? '' : target.pathname}`
}

/**
 * The code and message of a failed request. Connecting to a name with several addresses
 * (localhost: ::1 and 127.0.0.1) fails with an AggregateError whose code may sit on its errors.
 */
function describe(error: unknown): { code: string; message: string } {
  const first = error instanceof AggregateError ? (error.errors[0] as unknown) : undefined
  const code = codeOf(error) ?? codeOf(first) ?? ''
  const message = error instanceof Error && error.message !== '' ? error.message : first instanceof Error ? first.message : String(error)
  return { code, message }
}

function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' ? code : undefined
}
