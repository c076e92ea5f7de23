/** Reading serve's flags in tests: a machine of our own, and the message of a refusal. */
import { expect } from 'vitest'
import { ConfigError, parseServeConfig, type ConfigContext, type ServeConfig } from '../../src/config.js'

/** A machine with 2 CPUs at epoch 0 and no files, unless a test gives its own. */
export const TEST_MACHINE: ConfigContext = { now: () => 0, cpuCount: () => 2, readFile: () => '', isFile: () => false }

/** parseServeConfig on the given machine. */
export function parserFor(context: ConfigContext = TEST_MACHINE): (argv: string[], env?: Record<string, string>) => ServeConfig {
  return (argv, env = {}) => parseServeConfig(argv, env, context)
}

/** The message of the ConfigError `argv` (and `env`) must be refused with. */
export function refusalOf(parse: (argv: string[], env?: Record<string, string>) => unknown, argv: string[], env: Record<string, string> = {}): string {
  try {
    parse(argv, env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).message
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`)
}
