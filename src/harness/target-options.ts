/**
 * The flags `fleetsim report` and `fleetsim conformance` share: where the manager is and how to
 * reach it. Bad flags throw ConfigError (exit code 2), naming the flag.
 */
import { readFileSync } from 'node:fs'
import { ConfigError } from '../flags/config-error.js'
import { RuleError, switchFlag, valueFlag, type Flag } from '../flags/flag.js'
import { parseFlags, type ParsedFlags } from '../flags/parse.js'
import { httpUrl, nonEmpty } from '../flags/rules.js'
import { httpTransport, type Transport } from './http-client.js'

export interface TargetOptions {
  target: string
  user: string
  password: string
  transport: Transport
}

const readPem = (path: string): string => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    throw new RuleError('name a readable PEM file')
  }
}

/** The URL as typed (the suite keeps its path); checked to be http(s). */
const urlText = (text: string): string => {
  httpUrl(text)
  return text
}

export const TARGET = valueFlag({ name: 'target', valueName: '<url>', defaultText: 'none', help: 'the manager, e.g. https://127.0.0.1:9443', rule: urlText })
export const USER = valueFlag({ name: 'user', valueName: '<name>', defaultText: 'admin', help: 'REST_USER', rule: nonEmpty })
export const PASSWORD = valueFlag({ name: 'password', valueName: '<text>', defaultText: 'admin', help: 'REST_PASSWORD', rule: nonEmpty })
export const INSECURE = switchFlag({ name: 'insecure', help: 'accept any server certificate' })
export const CA = valueFlag({ name: 'ca', valueName: '<file>', defaultText: 'none', help: 'trust this CA certificate (PEM)', rule: readPem })
export const TARGET_FLAGS: readonly Flag[] = [TARGET, USER, PASSWORD, INSECURE, CA]

/** Parses the shared flags plus the command's own (`extra`); read the command's from `flags`. */
export function parseTargetArgs(
  argv: readonly string[],
  command: string,
  extra: readonly Flag[],
  defaults: { target?: string }
): { options: TargetOptions; flags: ParsedFlags } {
  const flags = parseFlags(argv, [...TARGET_FLAGS, ...extra], { command })
  if (flags.help) return { options: { target: '', user: '', password: '', transport: httpTransport({}) }, flags }
  const target = flags.maybe(TARGET) ?? defaults.target
  if (target === undefined) throw new ConfigError('FLEETSIM_MISSING_VALUE', '--target is required, e.g. --target https://manager:9443/<app>/mvc')
  const ca = flags.maybe(CA)
  return {
    options: {
      target,
      user: flags.get(USER, 'admin'),
      password: flags.get(PASSWORD, 'admin'),
      transport: httpTransport({ insecure: flags.get(INSECURE, false), ...(ca === undefined ? {} : { ca }) })
    },
    flags
  }
}

