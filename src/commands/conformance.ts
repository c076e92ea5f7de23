/**
 * `fleetsim conformance --target URL --user U --password P [--insecure | --ca FILE]
 * [--read-only] [--junit FILE] [--only id,id]`: runs the black-box protocol suite against any
 * manager and prints a pass/fail table. Exit code 0 when nothing failed, 1 otherwise.
 */
import { writeFile } from 'node:fs/promises'
import { CHECKS } from '../harness/conformance/checks.js'
import { formatJunit, formatTable } from '../harness/conformance/output.js'
import { runSuite } from '../harness/conformance/suite.js'
import { parseTargetArgs } from '../harness/target-options.js'
import { ConfigError } from '../config.js'
import { stdio, type Output } from './output.js'

export const USAGE = `Usage: fleetsim conformance --target URL [--user U] [--password P] [--insecure | --ca FILE] [--read-only] [--junit FILE] [--only ID,...]
  --target     the manager's base URL: https://host:9443/<app>/mvc (operations are under /restservice)
  --user, --password   REST_USER and REST_PASSWORD (default admin / admin)
  --insecure   accept any server certificate; --ca FILE trusts that CA instead
  --read-only  only GET operations: safe against a production manager
  --junit FILE also write the results as JUnit XML
  --only       run only these checks (ids from the table)

Checks: ${CHECKS.map((c) => c.id).join(', ')}
`

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE)
    return 0
  }
  const { options, values } = parseTargetArgs(argv, { 'read-only': { type: 'boolean' }, junit: { type: 'string' }, only: { type: 'string' } }, {})
  const only = typeof values.only === 'string' ? values.only.split(',').map((s) => s.trim()) : undefined
  const unknown = only?.filter((id) => !CHECKS.some((c) => c.id === id)) ?? []
  if (unknown.length > 0) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--only must name checks of the suite, got "${unknown.join(',')}" (see fleetsim conformance --help)`)
  const results = await runSuite({ ...options, readOnly: values['read-only'] === true, ...(only === undefined ? {} : { only }) })
  io.out(formatTable(results))
  if (typeof values.junit === 'string') await writeFile(values.junit, formatJunit(results, options.target))
  return results.some((r) => r.status === 'fail') ? 1 : 0
}
