/**
 * `fleetsim report [--target URL] [--user U --password P] [--insecure | --ca FILE] [--json | --html]`:
 * fetches the client report of a running simulator (`GET /__admin/report`) and prints it for
 * a terminal (or as JSON / HTML).
 */
import { switchFlag } from '../flags/flag.js'
import { renderText } from '../journal/report-render.js'
import type { ClientReport } from '../journal/report.js'
import { parseTargetArgs } from '../harness/target-options.js'
import { stdio, type Output } from './output.js'

export const USAGE = `Usage: fleetsim report [--target URL] [--user U] [--password P] [--insecure | --ca FILE] [--json | --html]
  --target    the simulator, e.g. https://127.0.0.1:9443 (default; any path is ignored)
  --user, --password   the admin credentials (default admin / admin)
  --insecure  accept any server certificate; --ca FILE trusts that CA instead
  --json, --html       print the report as JSON or HTML instead of text
`

const JSON_OUTPUT = switchFlag({ name: 'json', help: 'print the report as JSON' })
const HTML_OUTPUT = switchFlag({ name: 'html', help: 'print the report as HTML' })

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  const { options, flags } = parseTargetArgs(argv, 'fleetsim report', [JSON_OUTPUT, HTML_OUTPUT], { target: 'https://127.0.0.1:9443' })
  if (flags.help) {
    io.out(USAGE)
    return 0
  }
  const origin = new URL(options.target).origin
  const html = flags.get(HTML_OUTPUT, false)
  const answer = await options.transport({
    method: 'GET',
    url: `${origin}/__admin/report${html ? '?format=html' : ''}`,
    headers: { REST_USER: options.user, REST_PASSWORD: options.password, accept: html ? 'text/html' : 'application/json' }
  })
  if (answer.status !== 200) {
    io.err(`fleetsim report: ${origin}/__admin/report answered ${answer.status}: ${answer.body.slice(0, 300)}\n`)
    return 1
  }
  if (html || flags.get(JSON_OUTPUT, false)) io.out(answer.body.endsWith('\n') ? answer.body : `${answer.body}\n`)
  else io.out(renderText(JSON.parse(answer.body) as ClientReport))
  return 0
}
