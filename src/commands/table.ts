/**
 * The subcommands of `fleetsim`, one row each: how help shows it and how to load it. A command
 * is a module exporting `run(argv: string[]): Promise<number>` (argv: everything after the
 * command name; the result is the exit code), loaded only when used. The dispatcher (index.ts)
 * and the help (help.ts) read this table; the commands import neither, so nothing here imports
 * in a circle.
 */

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

/** To add a command, add a row. */
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
    usage: 'run <scenario> --out <dir> [--duration <time>] [--sample 60s]',
    summary: 'run a scenario headless at full speed and write a report (index.html, CSV, JSON, SVG chart)',
    load: () => import('./run.js')
  },
  report: {
    usage: 'report [--target URL] [--user U --password P] [--insecure | --ca FILE] [--json | --html]',
    summary: 'print the client report of a running simulator (verdict, findings, retries, coverage)',
    load: () => import('./report.js')
  },
  conformance: {
    usage: 'conformance --target URL [--user U --password P] [--insecure] [--read-only] [--junit FILE]',
    summary: 'run the protocol conformance suite against any manager',
    load: () => import('./conformance.js')
  }
} satisfies Record<string, Command>)

/** The command run when the first argument is a flag or there is none: `fleetsim --agents 50` serves. */
export const DEFAULT_COMMAND = 'serve'
