/**
 * The flags `fleetsim report` and `fleetsim conformance` share: where the manager is and how to
 * reach it. Bad flags throw ConfigError (exit code 2), naming the flag.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { ConfigError } from '../config.js'
import { httpTransport, type Transport } from './http-client.js'

export interface TargetOptions {
  target: string
  user: string
  password: string
  transport: Transport
}

type Extra = Record<string, { type: 'string' | 'boolean' }>

/** Parses the shared flags plus the command's own; `values` holds the command's. */
export function parseTargetArgs<E extends Extra>(
  argv: string[],
  extra: E,
  defaults: { target?: string }
): { options: TargetOptions; values: Record<string, string | boolean | undefined> } {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        target: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        insecure: { type: 'boolean' },
        ca: { type: 'string' },
        ...extra
      },
      strict: true,
      allowPositionals: false
    })
  } catch (error) {
    throw new ConfigError('FLEETSIM_UNKNOWN_FLAG', (error as Error).message)
  }
  const values = parsed.values as Record<string, string | boolean | undefined>
  const target = (values.target as string | undefined) ?? defaults.target
  if (target === undefined) throw new ConfigError('FLEETSIM_MISSING_VALUE', '--target is required, e.g. --target https://manager:9443/<app>/mvc')
  try {
    const url = new URL(target)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http')
  } catch {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--target must be an http:// or https:// URL, got "${target}"`)
  }
  let ca: string | undefined
  if (typeof values.ca === 'string') {
    try {
      ca = readFileSync(values.ca, 'utf8')
    } catch {
      throw new ConfigError('FLEETSIM_INVALID_VALUE', `--ca must name a readable PEM file, got "${values.ca}"`)
    }
  }
  return {
    options: {
      target,
      user: (values.user as string | undefined) ?? 'admin',
      password: (values.password as string | undefined) ?? 'admin',
      transport: httpTransport({ insecure: values.insecure === true, ...(ca === undefined ? {} : { ca }) })
    },
    values
  }
}
