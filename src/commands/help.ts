/** The text of `fleetsim --help` and the version, both derived from the tables they describe. */
import { readFileSync } from 'node:fs'
import { formatTable } from '../flags/help.js'
import { formatServeFlags } from './serve.js'
import { COMMANDS } from './table.js'

/** The package version; package.json sits two levels above both src/commands and dist/commands. */
export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

export function formatHelp(): string {
  const commandRows = [
    ...Object.values(COMMANDS).map((command) => [`fleetsim ${command.usage}`, command.summary]),
    ['fleetsim <command> --help', 'show the flags of a command'],
    ['fleetsim --help', 'show this help'],
    ['fleetsim --version', 'show the version']
  ]
  return `fleetsim ${readVersion()}: a simulated agent fleet behind an agent-manager REST server

Usage:
${formatTable(commandRows)}

Flags of fleetsim serve (a flag beats its env twin, which beats the default):
${formatServeFlags()}

Boolean flags take no value; --no-<flag> turns one off. Their env twins take true or false (or 1/0, yes/no, on/off).
Exit codes: 0 done, 1 failed while running, 2 bad command line.
`
}
