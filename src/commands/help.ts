/** The text of `fleetsim --help` and the version, both derived from the tables they describe. */
import { readFileSync } from 'node:fs'
import { SERVE_FLAGS, envName } from '../config.js'
import type { Command } from './index.js'

/** The package version; package.json sits two levels above both src/commands and dist/commands. */
export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  return rows.map((row) => `  ${row.map((cell, column) => (column < row.length - 1 ? cell.padEnd(widths[column]) : cell)).join('  ')}`.trimEnd()).join('\n')
}

/** Flags of `fleetsim serve`: flag, env twin, default, meaning. */
export function formatServeFlags(): string {
  const rows = SERVE_FLAGS.map((spec) => [
    spec.type === 'boolean' ? `--${spec.name}` : `--${spec.name} ${spec.valueName ?? '<value>'}`,
    envName(spec.name),
    spec.defaultText,
    spec.meaning
  ])
  return table([['flag', 'env', 'default', 'meaning'], ...rows])
}

export function formatHelp(commands: Readonly<Record<string, Command>>): string {
  const commandRows = [
    ...Object.values(commands).map((command) => [`fleetsim ${command.usage}`, command.summary]),
    ['fleetsim --help', 'show this help'],
    ['fleetsim --version', 'show the version']
  ]
  return `fleetsim ${readVersion()}: a simulated agent fleet behind an agent-manager REST server

Usage:
${table(commandRows)}

Flags of fleetsim serve (a flag beats its env twin, which beats the default):
${formatServeFlags()}

Boolean flags take no value; --no-<flag> turns one off. Their env twins take true or false.
Exit codes: 0 done, 1 failed while running, 2 bad command line.
`
}
