/** Help text derived from a flag table, so help can never disagree with what is parsed. */
import { envName, flagUsage, type Flag } from './flag.js'

/** Rows as an aligned two-space-indented table; the last column is not padded. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  return rows.map((row) => `  ${row.map((cell, column) => (column < row.length - 1 ? cell.padEnd(widths[column]) : cell)).join('  ')}`.trimEnd()).join('\n')
}

/** One row per flag: usage, meaning and default; with `env`, the env twin as well. */
export function formatFlags(flags: readonly Flag[], options: { env?: boolean } = {}): string {
  if (options.env === true) {
    return formatTable([['flag', 'env', 'default', 'meaning'], ...flags.map((flag) => [flagUsage(flag), envName(flag.name), flag.defaultText, flag.help])])
  }
  return formatTable(flags.map((flag) => [flagUsage(flag), flag.defaultText === 'false' || flag.defaultText === 'none' ? flag.help : `${flag.help} (default ${flag.defaultText})`]))
}
