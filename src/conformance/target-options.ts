/**
 * The flags `fleetsim report` and `fleetsim conformance` share: where the manager is and how to
 * reach it. Bad flags throw ConfigError (exit code 2), naming the flag.
 *
 * Which certificates are trusted: `--insecure` none checked; `--ca FILE` that CA; neither, and the
 * target is this machine (127.0.0.1, localhost, ::1): the CA of the simulator's data directory
 * (`<--data-dir>/tls/ca.pem`, the one `fleetsim serve` creates) when it exists; otherwise Node's
 * own CA store. The choice is kept as `trust` so an untrusted certificate can be explained.
 */
import { join } from 'node:path'
import { ConfigError } from '../flags/config-error.js'
import { RuleError, switchFlag, valueFlag, type Flag } from '../flags/flag.js'
import { parseFlags, type ParsedFlags } from '../flags/parse.js'
import { headerValue, httpUrl, nonEmpty } from '../flags/rules.js'
import { httpTransport, type Transport } from './http-client.js'
import { PEM_MAX_BYTES, readRegularFileSync, UnreadableFileError } from '../lib/regular-file.js'

/** serve's default --data-dir; a test keeps the two in step. */
export const DEFAULT_DATA_DIR = '.fleetsim'
/** Where a data directory keeps its CA certificate (src/tls/tls-store.ts; a test keeps them in step). */
export const CA_IN_DATA_DIR = join('tls', 'ca.pem')

/** Which server certificates the transport accepts. */
export type Trust =
  /** --insecure: any */
  | { readonly kind: 'insecure' }
  /** --ca FILE */
  | { readonly kind: 'ca-file'; readonly path: string }
  /** a local target's data-dir CA, trusted without a flag */
  | { readonly kind: 'local-ca'; readonly path: string }
  /** Node's CA store; for a local target, `lookedFor` is where no data-dir CA was found */
  | { readonly kind: 'system'; readonly lookedFor?: string }

export interface TargetOptions {
  target: string
  user: string
  password: string
  transport: Transport
  trust: Trust
}

interface Pem {
  path: string
  pem: string
}

const readPem = (path: string): Pem => {
  let pem: string
  try {
    pem = readRegularFileSync(path, PEM_MAX_BYTES)
  } catch (error) {
    throw new RuleError(`name a readable PEM file${error instanceof UnreadableFileError ? ` (${error.message})` : ''}`)
  }
  // Else every HTTPS request failed as "not trusted by the CA in FILE", which the file was not.
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new RuleError('name a PEM file holding a CA certificate (-----BEGIN CERTIFICATE-----), such as the tls/ca.pem of fleetsim\'s --data-dir')
  return { path, pem }
}

/** The URL as typed (the suite keeps its path); checked to be http(s). */
const urlText = (text: string): string => {
  const url = httpUrl(text)
  // Sent as given, a URL's user and password were never read: the manager takes headers.
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError(
      'FLEETSIM_INVALID_VALUE',
      `--target must hold no user or password (${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}): the manager reads REST_USER and REST_PASSWORD headers, not a URL's user and password: give them with --user and --password`
    )
  }
  return text
}

export const TARGET = valueFlag({ name: 'target', valueName: '<url>', defaultText: 'none', help: 'where the manager or simulator is (see above)', rule: urlText })
export const USER = valueFlag({ name: 'user', valueName: '<name>', defaultText: 'admin', help: 'REST_USER', rule: headerValue })
export const PASSWORD = valueFlag({ name: 'password', valueName: '<text>', defaultText: 'admin', help: 'REST_PASSWORD', rule: headerValue })
export const INSECURE = switchFlag({ name: 'insecure', help: 'accept any server certificate' })
export const CA = valueFlag({ name: 'ca', valueName: '<file>', defaultText: 'none', help: 'trust this CA certificate (PEM)', rule: readPem })
export const DATA_DIR = valueFlag({
  name: 'data-dir',
  valueName: '<dir>',
  defaultText: DEFAULT_DATA_DIR,
  help: "the simulator's data directory; its tls/ca.pem is trusted for a local target",
  rule: nonEmpty
})
export const TARGET_FLAGS: readonly Flag[] = [TARGET, USER, PASSWORD, INSECURE, CA, DATA_DIR]

/** This machine, as a URL names it: the data-dir CA is only ever trusted for these. */
const LOCAL_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]'])

export function isLocalTarget(target: string): boolean {
  return LOCAL_HOSTS.has(new URL(target).hostname.toLowerCase())
}

/** The trust for `target` from --insecure, --ca and --data-dir, with the CA's PEM to hand the transport. */
export function chooseTrust(target: string, flags: { insecure: boolean; ca?: Pem; dataDir: string }): { trust: Trust; pem?: string } {
  if (flags.insecure) return { trust: { kind: 'insecure' } }
  if (flags.ca !== undefined) return { trust: { kind: 'ca-file', path: flags.ca.path }, pem: flags.ca.pem }
  if (new URL(target).protocol !== 'https:' || !isLocalTarget(target)) return { trust: { kind: 'system' } }
  const path = join(flags.dataDir, CA_IN_DATA_DIR)
  try {
    return { trust: { kind: 'local-ca', path }, pem: readRegularFileSync(path, PEM_MAX_BYTES) }
  } catch {
    // No simulator has started with this data directory (or it is not ours to read).
    return { trust: { kind: 'system', lookedFor: path } }
  }
}

/** Parses the shared flags plus the command's own (`extra`); read the command's from `flags`. */
export function parseTargetArgs(
  argv: readonly string[],
  command: string,
  extra: readonly Flag[],
  defaults: { target?: string }
): { options: TargetOptions; flags: ParsedFlags } {
  const flags = parseFlags(argv, [...TARGET_FLAGS, ...extra], { command })
  if (flags.help) return { options: { target: '', user: '', password: '', transport: httpTransport({}), trust: { kind: 'system' } }, flags }
  const target = flags.maybe(TARGET) ?? defaults.target
  if (target === undefined) throw new ConfigError('FLEETSIM_MISSING_VALUE', '--target is required, e.g. --target https://manager:9443/<app>/mvc')
  const insecure = flags.get(INSECURE, false)
  const ca = flags.maybe(CA)
  if (insecure && ca !== undefined) {
    // --insecure checked no certificate, so the CA given was never used: a typo'd CA file passed.
    throw new ConfigError(
      'FLEETSIM_CONFLICTING_FLAGS',
      `--insecure and --ca cannot be used together: --insecure accepts any certificate, so the CA in ${ca.path} would check nothing; give --ca to check the server's certificate, or --insecure to skip the check`
    )
  }
  const { trust, pem } = chooseTrust(target, { insecure, ...(ca === undefined ? {} : { ca }), dataDir: flags.get(DATA_DIR, DEFAULT_DATA_DIR) })
  return {
    options: {
      target,
      user: flags.get(USER, 'admin'),
      password: flags.get(PASSWORD, 'admin'),
      transport: httpTransport({ insecure, ...(pem === undefined ? {} : { ca: pem }) }),
      trust
    },
    flags
  }
}
