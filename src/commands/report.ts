/**
 * `fleetsim report [--target URL] [--user U --password P] [--insecure | --ca FILE] [--json | --html]`:
 * fetches the client report of a running simulator (`GET /__admin/report`) and prints it for
 * a terminal (or as JSON / HTML).
 */
import { renderText } from '../harness/report-render.js'
import type { ClientReport } from '../harness/report.js'
import { parseTargetArgs } from '../harness/target-options.js'
import { stdio, type Output } from './output.js'

export const USAGE = `Usage: fleetsim report [--target URL] [--user U] [--password P] [--insecure | --ca FILE] [--json | --html]
  --target    the simulator, e.g. https://127.0.0.1:9443 (default; any path is ignored)
  --user, --password   the admin credentials (default admin / admin)
  --insecure  accept any server certificate; --ca FILE trusts that CA instead
  --json, --html       print the report as JSON or HTML instead of text
`

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE)
    return 0
  }
  const { options, values } = parseTargetArgs(argv, { json: { type: 'boolean' }, html: { type: 'boolean' } }, { target: 'https://127.0.0.1:9443' })
  const origin = new URL(options.target).origin
  const html = values.html === true
  const answer = await options.transport({
    method: 'GET',
    url: `${origin}/__admin/report${html ? '?format=html' : ''}`,
    headers: { REST_USER: options.user, REST_PASSWORD: options.password, accept: html ? 'text/html' : 'application/json' }
  })
  if (answer.status !== 200) {
    io.err(`fleetsim report: ${origin}/__admin/report answered ${answer.status}: ${answer.body.slice(0, 300)}\n`)
    return 1
  }
  if (html || values.json === true) io.out(answer.body.endsWith('\n') ? answer.body : `${answer.body}\n`)
  else io.out(renderText(JSON.parse(answer.body) as ClientReport))
  return 0
}
