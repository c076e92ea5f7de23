/**
 * The docs' examples that show agents of a default fleet: their names, a record, and the
 * answers of the admin API about them, taken from a real fleet rather than written by hand, so
 * a reader who copies a command meets an agent that exists (a default fleet: `npm start`'s
 * --agents and --seed) and an answer shaped like the one shown.
 *
 * The fleet starts paused at EXAMPLE_START_TIME, so the records and counts are the same on every
 * run; the examples name the first two agents the fleet lists.
 */
import { request } from 'node:https'
import { DEFAULT_AGENTS, DEFAULT_SEED } from '../../src/config.js'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import { layoutJson } from './json-layout.js'

/** The virtual time the example fleet starts at (docs/admin.md's clock example shows it too). */
export const EXAMPLE_START_TIME = '2026-03-01T00:00:00Z'

/** The address the docs write (README, "Set up": `npm start`'s defaults). */
const DOC_HOST = 'localhost:9443'
/** docs/protocol.md writes links as `L/…` */
const DOC_LINK_PREFIX = `https://${DOC_HOST}/manager/mvc/mvc/restservice`

/** A default fleet (--agents and --seed of `npm start`), paused at EXAMPLE_START_TIME. */
export function startDefaultFleet(): Promise<RunningFleetsim> {
  return startFleetsim({ agents: DEFAULT_AGENTS, seed: DEFAULT_SEED, startTime: EXAMPLE_START_TIME, paused: true })
}

interface Answer {
  status: number
  body: string
}

/**
 * One request to the running fleet over HTTPS, with the Host header of the docs so the links in
 * answers read `https://localhost:9443/…` as the docs write them.
 */
export function call(sim: RunningFleetsim, method: string, path: string, options: { body?: string; accept?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...sim.headers, host: DOC_HOST, accept: options.accept ?? 'application/json' }
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const req = request(new URL(path, sim.origin), { method, ca: sim.ca, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

async function answer(sim: RunningFleetsim, method: string, path: string, options: { body?: string; accept?: string } = {}): Promise<string> {
  const { status, body } = await call(sim, method, path, options)
  if (status !== 200) throw new Error(`${method} ${path} answered ${status}: ${body.slice(0, 300)}`)
  return body
}

const fence = (info: string, body: string): string => `\`\`\`${info}\n${body}\n\`\`\``

/** Generated regions (scripts/lib/doc-regions.ts) by file, then by region name. */
export type DocExamples = Record<string, Record<string, string>>

/**
 * Every generated region's content, from requests to `sim` (a fresh startDefaultFleet(): the
 * order below matters, as the override changes the first agent).
 */
export async function docExamples(sim: RunningFleetsim): Promise<DocExamples> {
  const listed = JSON.parse(await answer(sim, 'GET', '/manager/mvc/restservice/agentinfo.json?agentwithmodules=false')) as { values: Array<{ content: { name: string } }> }
  const [first, second] = listed.values.map(({ content }) => content.name)
  const fleet = await answer(sim, 'GET', '/__admin/fleet')
  const record = await answer(sim, 'GET', `/manager/mvc/restservice/agentinfo?agentname=${first}&agentwithmodules=true`)
  const xml = await answer(sim, 'GET', `/manager/mvc/restservice/agentinfo.xml?agentname=${first}`, { accept: 'application/xml' })
  const override = await answer(sim, 'POST', `/__admin/agents/${first}/override`, { body: '{"action": "offline", "for": "5m"}' })
  const failNext = await answer(sim, 'POST', `/__admin/agents/${first}/fail-next-reconnect`)

  const byName = `'https://127.0.0.1:9443/manager/mvc/restservice/agentinfo.json?agentname=${first},${second}&agentwithmodules=true'`
  return {
    'README.md': {
      'readme-agents-by-name': fence('sh runnable', `curl -k -H 'REST_USER: admin' -H 'REST_PASSWORD: admin' ${byName}`)
    },
    'docs/admin.md': {
      'admin-fleet': fence('sh runnable', `curl $A https://127.0.0.1:9443/__admin/fleet\n# ${fleet}`),
      'admin-override': fence(
        'sh runnable',
        `curl $A -H content-type:application/json -d '{"action": "offline", "for": "5m"}' \\\n  https://127.0.0.1:9443/__admin/agents/${first}/override\n# ${override}`
      ),
      'admin-fail-next-reconnect': fence('sh runnable', `curl $A -X POST https://127.0.0.1:9443/__admin/agents/${first}/fail-next-reconnect\n# ${failNext}`)
    },
    'docs/protocol.md': {
      'protocol-agentinfo-xml': `Example: \`GET /manager/mvc/restservice/agentinfo.xml?agentname=${first}\`\n\n${fence('xml', xml)}`,
      'protocol-agentinfo-json': `\`GET R/agentinfo?agentname=${first}&agentwithmodules=true\`\n\n${fence('json', layoutJson(JSON.parse(record.replaceAll(DOC_LINK_PREFIX, 'L'))))}`
    }
  }
}
