/**
 * `fleetsim report [--target URL] [--user U --password P] [--insecure | --ca FILE] [--data-dir DIR]
 * [--json | --html]`: fetches the client report of a running simulator (`GET /__admin/report`)
 * and prints it for a terminal (or as JSON / HTML). A simulator that cannot be used gets one
 * line naming the cause (src/conformance/target-probe.ts) and exit code 1.
 */
import { ConfigError } from '../flags/config-error.js'
import { switchFlag } from '../flags/flag.js'
import { formatFlags } from '../flags/help.js'
import { renderText } from '../journal/report-render.js'
import type { ClientReport } from '../journal/report.js'
import { TARGET_FLAGS, parseTargetArgs } from '../conformance/target-options.js'
import { fetchAdmin } from '../conformance/target-probe.js'
import { stdio, type Output } from './output.js'

const JSON_OUTPUT = switchFlag({ name: 'json', help: 'print the report as JSON' })
const HTML_OUTPUT = switchFlag({ name: 'html', help: 'print the report as HTML' })
const OWN_FLAGS = [JSON_OUTPUT, HTML_OUTPUT]
const DEFAULT_TARGET = 'https://127.0.0.1:9443'

export const USAGE = `Usage: fleetsim report [flags]

Prints the client report of a running simulator (GET /__admin/report): a verdict (pass, pass
with warnings, fail) and why, findings with the requests that show them, latency by status,
rules broken, retries and backoff, partial failures, coverage. --html writes a self-contained
page with a timeline chart and the bodies of those requests. --target is the simulator (default ${DEFAULT_TARGET};
any path is ignored); --user and --password are its admin credentials. A simulator that cannot
be used (nothing listening, HTTP and HTTPS mixed up, a certificate not trusted, credentials
refused) gets one line saying why, and exit code 1.

Flags:
${formatFlags([...TARGET_FLAGS, ...OWN_FLAGS])}
`

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  const { options, flags } = parseTargetArgs(argv, 'fleetsim report', OWN_FLAGS, { target: DEFAULT_TARGET })
  if (flags.help) {
    io.out(USAGE)
    return 0
  }
  const html = flags.get(HTML_OUTPUT, false)
  if (html && flags.get(JSON_OUTPUT, false)) throw new ConfigError('FLEETSIM_CONFLICTING_FLAGS', '--json and --html ask for two formats of one report; give one of them')
  const path = `/__admin/report${html ? '?format=html' : ''}`
  const fetched = await fetchAdmin(options, path, html ? 'text/html' : 'application/json')
  if (!fetched.ok) {
    io.err(`fleetsim report: ${fetched.problem}\n`)
    return 1
  }
  const { answer } = fetched
  if (answer.status !== 200) {
    io.err(`fleetsim report: ${new URL(options.target).origin}${path} answered ${answer.status}: ${answer.body.slice(0, 300)}\n`)
    return 1
  }
  // A server that answers 200 to anything (a web server, a mock) is no fleetsim: its page printed
  // as the report, or read as one, said nothing true.
  const report = html ? undefined : clientReportIn(answer.body)
  if (html ? !answer.body.includes('<title>fleetsim client report') : report === undefined) {
    io.err(`fleetsim report: ${new URL(options.target).origin}${path} answered 200 with something that is not fleetsim's client report: is it fleetsim? (it begins ${JSON.stringify(answer.body.slice(0, 80))})\n`)
    return 1
  }
  if (report === undefined || flags.get(JSON_OUTPUT, false)) io.out(answer.body.endsWith('\n') ? answer.body : `${answer.body}\n`)
  else io.out(renderText(report))
  return 0
}

/** The body as a client report, if it is one (the fields renderText reads are there). */
function clientReportIn(body: string): ClientReport | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  const report = parsed as Partial<ClientReport> | null
  const isReport =
    typeof report === 'object' && report !== null && typeof report.verdict?.outcome === 'string' && typeof report.journal === 'object' && Array.isArray(report.operations) && Array.isArray(report.violations)
  return isReport ? (report as ClientReport) : undefined
}
