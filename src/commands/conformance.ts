/**
 * `fleetsim conformance --target URL [--user U --password P] [--insecure | --ca FILE]
 * [--data-dir DIR] [--read-only] [--junit FILE] [--only id,id]`: checks the target can be used
 * (one line naming the cause when not), then runs the black-box protocol suite against it and
 * prints a pass/fail table. Exit code 0 when a check passed and none failed, 1 otherwise.
 */
import { writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { ConfigError } from '../flags/config-error.js'
import { switchFlag, valueFlag } from '../flags/flag.js'
import { formatFlags } from '../flags/help.js'
import { prepareOutputFile } from '../flags/output-dir.js'
import { nonEmpty } from '../flags/rules.js'
import { CHECKS } from '../conformance/checks.js'
import { formatJunit, formatLine, formatSummary, idWidth } from '../conformance/output.js'
import { runSuite, type CheckResult } from '../conformance/suite.js'
import { TARGET_FLAGS, parseTargetArgs } from '../conformance/target-options.js'
import { probeOperations } from '../conformance/target-probe.js'
import { stdio, type Output } from './output.js'
import { suggest } from '../lib/suggest.js'

const READ_ONLY = switchFlag({ name: 'read-only', help: 'only GET operations: safe against a production manager' })
const JUNIT = valueFlag({ name: 'junit', valueName: '<file>', defaultText: 'none', help: 'also write the results as JUnit XML (checked before the suite runs; its directory made if missing)', rule: nonEmpty })
const ONLY = valueFlag({ name: 'only', valueName: '<id,...>', defaultText: 'every check', help: 'run only these checks (ids below)', rule: nonEmpty })
const OWN_FLAGS = [READ_ONLY, JUNIT, ONLY]

export const USAGE = `Usage: fleetsim conformance --target URL [flags]

Runs the black-box protocol suite against a manager, simulated or real, and prints one line
per check: PASS, FAIL with the reason, or SKIP with why. URL is the base URL, the application
path ending in mvc: https://host:9443/<app>/mvc (fleetsim's is /manager/mvc); operations are
under <URL>/restservice. A target that cannot be used (nothing listening, HTTP and HTTPS mixed
up, a certificate not trusted, credentials refused, a wrong path) gets one line saying why.
Exit code 0 when a check passed and none failed, 1 when one failed, every one selected was
skipped, or the target cannot be used.

Flags:
${formatFlags([...TARGET_FLAGS, ...OWN_FLAGS])}

Checks: ${CHECKS.map((c) => c.id).join(', ')}
`

const CHECK_IDS = CHECKS.map((c) => c.id)

/** A name --only was given that is no check: what it may have meant (a typo of one, or the checks it begins). */
function unknownCheck(id: string): string {
  const near = suggest(id, CHECK_IDS)
  const begun = CHECK_IDS.filter((check) => id !== '' && check.startsWith(id))
  const meant = near !== undefined ? [near] : begun
  return `"${id}" is none${meant.length === 0 ? '' : ` (did you mean ${meant.map((m) => `"${m}"`).join(' or ')}?)`}`
}

/** The case a JUnit file holds while its run has not ended. */
const UNFINISHED: CheckResult = {
  id: 'unfinished',
  title: 'the suite ran to its end',
  status: 'fail',
  message: 'the run was stopped before its end (a CI timeout, Ctrl-C): the cases before this one are the checks that had ended',
  ms: 0
}

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  const { options, flags } = parseTargetArgs(argv, 'fleetsim conformance', OWN_FLAGS, {})
  if (flags.help) {
    io.out(USAGE)
    return 0
  }
  // Empty items dropped (`--only a,b,`), as a list parameter of the REST operations drops them.
  const only = flags.maybe(ONLY)?.split(',').map((s) => s.trim()).filter((id) => id !== '')
  const unknown = only?.filter((id) => !CHECKS.some((c) => c.id === id)) ?? []
  if (unknown.length > 0) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--only must name checks of the suite: ${unknown.map(unknownCheck).join('; ')}. The checks: ${CHECK_IDS.join(', ')}`)
  // Before the suite, which takes a while: a --junit that cannot be written is said now, not
  // after the run it was to record.
  const junit = flags.maybe(JUNIT)
  if (junit !== undefined) await prepareOutputFile(JUNIT.name, junit)
  // Until the run ends, the file holds the cases so far and a failed one saying the run did not
  // end: a run stopped part way (a CI timeout, Ctrl-C) leaves no earlier run's passes in place.
  const ended: CheckResult[] = []
  const recordSoFar = () => {
    if (junit !== undefined) writeFileSync(junit, formatJunit([...ended, UNFINISHED], options.target))
  }
  recordSoFar()
  const problem = await probeOperations(options)
  if (problem !== undefined) {
    io.err(`fleetsim conformance: ${problem}\n`)
    // A CI job reads the file: one failed case saying why, not an earlier run's passes left in place.
    const unreachable = { id: 'target', title: 'the target answers the operations of the spec', status: 'fail', message: problem, ms: 0 } as const
    if (junit !== undefined) await writeFile(junit, formatJunit([unreachable], options.target))
    return 1
  }
  // Each check's line as it ends, so a run stopped part way (a CI timeout) still says how far it got.
  const width = idWidth(CHECKS.filter((c) => only === undefined || only.includes(c.id)).map((c) => c.id))
  const onResult = (result: CheckResult) => {
    ended.push(result)
    recordSoFar()
    io.out(`${formatLine(result, width)}\n`)
  }
  const results = await runSuite({ ...options, readOnly: flags.get(READ_ONLY, false), ...(only === undefined ? {} : { only }), onResult })
  io.out(`\n${formatSummary(results)}\n`)
  if (junit !== undefined) await writeFile(junit, formatJunit(results, options.target))
  if (results.some((r) => r.status === 'fail')) return 1
  // A selection that ran nothing (every check skipped) proves nothing: a CI gate must not pass on it.
  if (!results.some((r) => r.status === 'pass')) {
    io.err('fleetsim conformance: no check ran, every one selected was skipped (why: above); select checks that can run here\n')
    return 1
  }
  return 0
}
