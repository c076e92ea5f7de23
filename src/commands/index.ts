/**
 * The dispatcher of `fleetsim`: finds the command in the table (table.ts), loads it and runs it.
 * Bad flags throw ConfigError: the dispatcher prints the message and returns exit code 2.
 */
import { ConfigError } from '../flags/config-error.js'
import { suggest } from '../lib/suggest.js'
import { formatHelp, readVersion } from './help.js'
import { stdio, type Output } from './output.js'
import { COMMANDS, DEFAULT_COMMAND } from './table.js'

export type { Output }

/** Exit codes: 0 done, 1 failed while running, 2 bad command line. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const

/** Runs `fleetsim <argv>` and resolves with the exit code; never exits the process itself. */
export async function main(argv: readonly string[], output: Output = stdio): Promise<number> {
  const [first, ...rest] = argv
  if (first === '--help' || first === '-h' || first === 'help') {
    output.out(formatHelp())
    return EXIT.ok
  }
  if (first === '--version' || first === '-v' || first === '-V') {
    output.out(`${readVersion()}\n`)
    return EXIT.ok
  }

  let name = DEFAULT_COMMAND
  let args = [...argv]
  if (first !== undefined && !first.startsWith('-')) {
    if (!Object.hasOwn(COMMANDS, first)) {
      const owner = commandWithSubcommand(first)
      const guess = owner === undefined ? suggest(first, Object.keys(COMMANDS)) : `${owner} ${first}`
      const hint = guess === undefined ? `commands: ${Object.keys(COMMANDS).join(', ')}` : `did you mean "${guess}"?`
      output.err(`fleetsim: unknown command "${first}"; ${hint} (see fleetsim --help)\n`)
      return EXIT.usage
    }
    name = first
    args = rest
  }

  try {
    const command = await COMMANDS[name].load()
    return await command.run(args)
  } catch (error) {
    return reportFailure(error, output)
  }
}

/**
 * The command whose usage names `word` as one of its subcommands (`scenario validate <file>... |
 * list`): a subcommand given without its command (`fleetsim validate x.yaml`) is pointed to it.
 */
function commandWithSubcommand(word: string): string | undefined {
  for (const [command, { usage }] of Object.entries(COMMANDS)) {
    const subcommands = usage.slice(command.length).split('|').map((part) => part.trim().split(' ')[0])
    if (subcommands.includes(word)) return command
  }
  return undefined
}

/**
 * A command's failure on stderr, and its exit code. A TypeError, RangeError or ReferenceError
 * is fleetsim's own bug, not the user's mistake: its stack says where, for the report (a run
 * once failed with "Maximum call stack size exceeded" alone).
 */
export function reportFailure(error: unknown, output: Output): number {
  if (error instanceof ConfigError) {
    output.err(`fleetsim: ${error.message}\n`)
    return EXIT.usage
  }
  if (error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError) {
    output.err(`fleetsim: ${error.message}\nThis is a bug in fleetsim: please report it with these lines.\n${error.stack ?? ''}\n`)
    return EXIT.failed
  }
  output.err(`fleetsim: ${error instanceof Error ? error.message : String(error)}\n`)
  return EXIT.failed
}
