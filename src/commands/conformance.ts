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
import { ConfigError } from '../flags/config-error.js'
import { switchFlag, valueFlag } from '../flags/flag.js'
import { nonEmpty } from '../flags/rules.js'
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

const READ_ONLY = switchFlag({ name: 'read-only', help: 'only GET operations: safe against a production manager' })
const JUNIT = valueFlag({ name: 'junit', valueName: '<file>', defaultText: 'none', help: 'also write the results as JUnit XML', rule: nonEmpty })
const ONLY = valueFlag({ name: 'only', valueName: '<id,...>', defaultText: 'every check', help: 'run only these checks', rule: nonEmpty })

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  const { options, flags } = parseTargetArgs(argv, 'fleetsim conformance', [READ_ONLY, JUNIT, ONLY], {})
  if (flags.help) {
    io.out(USAGE)
    return 0
  }
  const only = flags.maybe(ONLY)?.split(',').map((s) => s.trim())
  const unknown = only?.filter((id) => !CHECKS.some((c) => c.id === id)) ?? []
  if (unknown.length > 0) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--only must name checks of the suite, got "${unknown.join(',')}" (see fleetsim conformance --help)`)
  const results = await runSuite({ ...options, readOnly: flags.get(READ_ONLY, false), ...(only === undefined ? {} : { only }) })
  io.out(formatTable(results))
  const junit = flags.maybe(JUNIT)
  if (junit !== undefined) await writeFile(junit, formatJunit(results, options.target))
  return results.some((r) => r.status === 'fail') ? 1 : 0
}
