/**
 * `fleetsim scenario validate FILE...` and `fleetsim scenario list`.
 * `argv` holds the words after `scenario`. Returns the exit code; never exits the process.
 */
import { relative } from 'node:path'
import { formatIssue } from '../scenario/errors.js'
import { listLibrary } from '../scenario/library.js'
import { loadScenarioFile } from '../scenario/load.js'
import { stdio, type Output } from './output.js'

export const USAGE = `Usage:
  fleetsim scenario validate FILE...   check scenario files; prints OK or every problem
  fleetsim scenario list               the scenario library with descriptions

Options:
  --json    validate: print the result as JSON (one object per file)
`

async function validate(args: string[], io: Output): Promise<number> {
  const json = args.includes('--json')
  const unknown = args.filter((a) => a.startsWith('-') && a !== '--json')
  if (unknown.length > 0) {
    io.err(`unknown option ${unknown[0]}\n${USAGE}`)
    return 2
  }
  const files = args.filter((a) => !a.startsWith('-'))
  if (files.length === 0) {
    io.err(`scenario validate needs at least one FILE\n${USAGE}`)
    return 2
  }
  let failed = 0
  const report: unknown[] = []
  for (const file of files) {
    const result = await loadScenarioFile(file)
    if (!result.ok) failed++
    if (json) {
      report.push(result.ok ? { file, ok: true } : { file, ok: false, issues: result.issues })
    } else if (result.ok) {
      io.out(`OK ${file}\n`)
    } else {
      for (const issue of result.issues) io.err(`${formatIssue(issue)}\n`)
      const n = result.issues.length
      io.err(`FAIL ${file}: ${n} problem${n === 1 ? '' : 's'}\n`)
    }
  }
  if (json) io.out(`${JSON.stringify(report, null, 2)}\n`)
  return failed === 0 ? 0 : 1
}

async function list(io: Output): Promise<number> {
  const entries = await listLibrary()
  const width = Math.max(0, ...entries.map((e) => e.name.length))
  for (const e of entries) {
    io.out(`${e.name.padEnd(width)}  ${e.description.replace(/\s+/g, ' ').trim()}\n`)
    io.out(`${' '.repeat(width)}  ${relative(process.cwd(), e.file) || e.file}\n`)
  }
  return entries.every((e) => e.valid) ? 0 : 1
}

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  const [sub, ...rest] = argv
  switch (sub) {
    case 'validate':
      return validate(rest, io)
    case 'list':
      return list(io)
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(USAGE)
      return sub === undefined ? 2 : 0
    default:
      io.err(`unknown scenario command "${sub}"\n${USAGE}`)
      return 2
  }
}
