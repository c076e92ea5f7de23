/**
 * The subcommands of `fleetsim` and the dispatcher. Each command is a module exporting
 * `run(argv: string[]): Promise<number>` (argv: everything after the command name; the result
 * is the exit code), loaded only when used. To add a command, add a row to COMMANDS.
 * Bad flags throw ConfigError: the dispatcher prints the message and returns exit code 2.
 */
import { ConfigError } from '../flags/config-error.js'
import { suggest } from '../lib/suggest.js'
import { formatHelp, readVersion } from './help.js'
import { stdio, type Output } from './output.js'

export interface CommandModule {
  run(argv: string[]): Promise<number>
}

export interface Command {
  /** how it is called, for help: `serve [flags]` */
  readonly usage: string
  /** one line for help */
  readonly summary: string
  readonly load: () => Promise<CommandModule>
}

export const COMMANDS: Readonly<Record<string, Command>> = Object.freeze({
  serve: {
    usage: 'serve [flags]',
    summary: 'run the simulated agent manager (the default command)',
    load: () => import('./serve.js')
  },
  scenario: {
    usage: 'scenario validate <file>... | list',
    summary: 'check scenario files, or list the scenario library',
    load: () => import('./scenario.js')
  },
  run: {
    usage: 'run <scenario> --out <dir> [--duration 24h] [--sample 60s]',
    summary: 'run a scenario headless at full speed and write a report (CSV, JSON, SVG chart)',
    load: () => import('./run.js')
  },
  report: {
    usage: 'report [--target URL] [--user U --password P] [--insecure]',
    summary: 'print the client report of a running simulator (rules broken, retries, coverage)',
    load: () => import('./report.js')
  },
  conformance: {
    usage: 'conformance --target URL [--user U --password P] [--insecure] [--read-only] [--junit FILE]',
    summary: 'run the protocol conformance suite against any manager',
    load: () => import('./conformance.js')
  }
  // More commands (run, report, conformance) go here, one row each.
} satisfies Record<string, Command>)

/** The command run when the first argument is a flag or there is none. */
export const DEFAULT_COMMAND = 'serve'

/** Exit codes: 0 done, 1 failed while running, 2 bad command line. */
export type { Output }

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const

/** Runs `fleetsim <argv>` and resolves with the exit code; never exits the process itself. */
export async function main(argv: readonly string[], output: Output = stdio): Promise<number> {
  const [first, ...rest] = argv
  if (first === '--help' || first === '-h' || first === 'help') {
    output.out(formatHelp(COMMANDS))
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
      const guess = suggest(first, Object.keys(COMMANDS))
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
    if (error instanceof ConfigError) {
      output.err(`fleetsim: ${error.message}\n`)
      return EXIT.usage
    }
    output.err(`fleetsim: ${error instanceof Error ? error.message : String(error)}\n`)
    return EXIT.failed
  }
}
