/**
 * Proven queries: every query of every Grafana dashboard panel, annotation and variable is
 * evaluated by a real Prometheus scraping a running fleetsim, and must be valid and return
 * series, with at least one value that is a number. fleetsim runs in-process over plain HTTP,
 * wired as startServer wires it (facade, fault plugin, metrics plugin), with a lively scenario
 * at speed 120 (flapping, crashing modules, a timeline event every virtual minute, failing
 * reconnects, a fault rule) and some API traffic; Prometheus (Debian's `prometheus` package, installed by .ci/run)
 * scrapes it every second into a temporary store.
 *
 * Grafana's variables are replaced by concrete values: `$__rate_interval` by 10s (a few
 * scrapes), `$__interval` by 15s, `$__range` by 5m, and each template variable by its "All"
 * value. Without the prometheus binary the test is skipped with a warning on stderr saying how to
 * install it, unless CI is set: then a test fails, saying the same.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { loadScenarioFileOrThrow } from '../../src/scenario/index.js'
import { CA } from '../http/helpers.js'
import { IN_CI, onPath } from './helpers.js'

const RATE_INTERVAL = '10s'
const INTERVAL = '15s'
const RANGE = '5m'
/** samples of one series the windows above need before the queries are evaluated */
const SAMPLES_NEEDED = 8
const REST = '/manager/mvc/restservice'
const START = Date.parse('2026-05-01T00:00:00Z')

/**
 * A lively fleet at speed 120 (two virtual minutes per wall second): a flapping segment,
 * crash-looping modules, a timeline event every virtual minute, reconnects that fail, and a
 * fault rule on agentinfo.
 */
const SCENARIO = `name: proven-queries
description: Lively fleet for the proven-queries test.
fleet:
  agents: 2000
  seed: 11
  labels:
    - { name: network, value: wifi, fraction: 0.3 }
stages:
  - name: wifi-flap
    select: { state: ONLINE, label: "network=wifi" }
    rate: 30/h
    next: { action: offline, for: 30s }
  - name: crash-loop
    select: { state: ONLINE }
    rate: 2/h
    next: { action: crash-module, for: 20s }
timeline:
  - { name: pulse, every: 1m, select: { label: "network=wifi" }, action: restart-modules }
reconnect:
  failures:
    - { probability: 0.3 }
faults:
  - { name: slow-agentinfo, operation: agentinfo, latency: 5 }
`

/** Template ids for the scenario compiler (the scenario names none). */
function templateIds(): { templateId(name: string): number } {
  const ids = new Map<string, number>()
  return { templateId: (name) => ids.get(name) ?? (ids.set(name, ids.size), ids.size - 1) }
}
const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'secret', accept: 'application/json' }

/** PROMETHEUS_BIN when set, else `prometheus` on the PATH (Debian installs /usr/bin/prometheus). */
function findPrometheus(): string | undefined {
  const given = process.env.PROMETHEUS_BIN
  if (given !== undefined && given !== '') return existsSync(given) ? given : undefined
  return onPath('prometheus')
}

const prometheusBin = findPrometheus()
const inCi = IN_CI

// ---- the queries of the committed dashboards -------------------------------------------------

interface Query {
  where: string
  expr: string
  /** label_values(metric, label): the series of `expr` must carry this label */
  label?: string
}

interface DashboardJson {
  title: string
  panels: Array<{ title: string; targets?: Array<{ refId: string; expr: string }> }>
  annotations: { list: Array<{ name: string; expr?: string; builtIn?: number }> }
  templating: { list: Array<{ name: string; type: string; allValue?: string; query?: { query: string } | string }> }
}

function dashboardQueries(): Query[] {
  const queries: Query[] = []
  for (const file of readdirSync('grafana/dashboards').filter((name) => name.endsWith('.json')).sort()) {
    const dashboard = JSON.parse(readFileSync(join('grafana/dashboards', file), 'utf8')) as DashboardJson
    const values = new Map<string, string>()
    for (const variable of dashboard.templating.list) {
      if (variable.type === 'query') {
        values.set(variable.name, variable.allValue ?? '.+')
        const text = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '')
        const labelValues = /^label_values\((.+),\s*(\w+)\)$/.exec(text)
        if (labelValues !== null) queries.push({ where: `${dashboard.title} / variable ${variable.name}`, expr: labelValues[1], label: labelValues[2] })
        else queries.push({ where: `${dashboard.title} / variable ${variable.name}`, expr: text })
      }
    }
    const substitute = (expr: string) =>
      expr
        .replaceAll('$__rate_interval', RATE_INTERVAL)
        .replaceAll('$__interval', INTERVAL)
        .replaceAll('$__range', RANGE)
        .replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => values.get(braced ?? bare ?? '') ?? whole)
    for (const panel of dashboard.panels) {
      for (const target of panel.targets ?? []) queries.push({ where: `${dashboard.title} / ${panel.title} / ${target.refId}`, expr: substitute(target.expr) })
    }
    for (const annotation of dashboard.annotations.list) {
      if (annotation.builtIn === 1 || annotation.expr === undefined) continue
      queries.push({ where: `${dashboard.title} / annotation ${annotation.name}`, expr: substitute(annotation.expr) })
    }
  }
  return queries
}

// ---- processes ---------------------------------------------------------------------------------

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

interface PromResponse {
  status: 'success' | 'error'
  error?: string
  data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> }
}

async function promQuery(base: string, expr: string): Promise<PromResponse> {
  const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`)
  return (await response.json()) as PromResponse
}

/** Polls until check() is true, or throws after `ms`. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      if (await check()) return
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const MISSING =
  'prometheus is not installed, so no dashboard query is checked against a real Prometheus: ' +
  'install it with `apt-get install prometheus` (Debian\'s package, as .ci/run does), or set PROMETHEUS_BIN to its path'

// Outside CI a machine without Prometheus may still run the suite, but not quietly: vitest
// shows a warning with the file's name, saying what was not checked and how to check it.
if (prometheusBin === undefined && !inCi) console.warn(`proven-queries: SKIPPED: ${MISSING}. With CI=true this test fails instead.`)

describe.runIf(prometheusBin === undefined && inCi)('the proven-queries check in CI', () => {
  it('finds the prometheus binary (.ci/run installs Debian\'s prometheus package)', () => {
    expect.fail(MISSING)
  })
})

describe.skipIf(prometheusBin === undefined)('every dashboard query against a real Prometheus', () => {
  let fleet: FleetEngine
  let app: FastifyInstance
  let prometheus: ChildProcess | undefined
  let prometheusLog = ''
  let promBase = ''
  let dir = ''
  let traffic: NodeJS.Timeout | undefined

  beforeAll(async () => {
    const started = Date.now()
    dir = mkdtempSync(join(tmpdir(), 'fleetsim-prometheus-'))
    const scenarioFile = join(dir, 'proven-queries.yaml')
    writeFileSync(scenarioFile, SCENARIO)
    const scenario = compileScenario(await loadScenarioFileOrThrow(scenarioFile), START, templateIds())
    fleet = await createFleet({ agents: 0, seed: 0, workers: 1, speed: 120, startTime: START, caFingerprint: CA.fingerprint, scenario })
    // The app fleetsim serve answers with: facade, the scenario's API faults, metrics.
    app = (await buildApp({ fleet, ca: CA }, { user: 'admin', password: 'secret' })).app
    await app.listen({ host: '127.0.0.1', port: 0 })
    const appPort = (app.server.address() as { port: number }).port

    // API traffic: successes, a 401, a 404, and reconnects (updateandreloadagent).
    const names = [0, 1, 2, 3].map((i) => fleet.name(i))
    const uuids = [10, 11, 12, 13, 14].map((i) => fleet.uuid(i))
    const url = (path: string) => `http://127.0.0.1:${appPort}${path}`
    const send = () =>
      Promise.allSettled([
        fetch(url(`${REST}/agentinfo?agentname=${names.join(',')}`), { headers: AUTH }),
        fetch(url(`${REST}/agentinfo?agentstate=OFFLINE`), { headers: AUTH }),
        fetch(url(`${REST}/agentmanager`), { headers: { accept: 'application/json' } }),
        fetch(url('/no-such-path'), { headers: AUTH }),
        fetch(url(`${REST}/updateandreloadagent?agentUuids=${uuids.join(',')}`), { method: 'POST', headers: AUTH })
      ]).then((results) => Promise.all(results.map((r) => (r.status === 'fulfilled' ? r.value.arrayBuffer() : undefined))))
    traffic = setInterval(() => void send(), 300)

    const config = join(dir, 'prometheus.yml')
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        'scrape_configs:',
        '  - job_name: fleetsim',
        '    metrics_path: /metrics',
        '    scheme: http',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${appPort}']`,
        ''
      ].join('\n')
    )
    const promPort = await freePort()
    promBase = `http://127.0.0.1:${promPort}`
    prometheus = spawn(
      prometheusBin as string,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        '--storage.tsdb.retention.time=1h',
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn'
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] }
    )
    prometheus.stderr?.on('data', (chunk: Buffer) => (prometheusLog = (prometheusLog + chunk.toString()).slice(-4000)))
    const exited = new Promise<never>((_, reject) =>
      prometheus?.once('exit', (code) => reject(new Error(`prometheus exited (code ${code}):\n${prometheusLog}`)))
    )
    exited.catch(() => undefined)

    // Enough scrapes for the rate windows, counted by Prometheus itself.
    await Promise.race([
      exited,
      until(`${SAMPLES_NEEDED} scrapes of fleetsim`, 45_000, async () => {
        const answer = await promQuery(promBase, `count_over_time(up{job="fleetsim"}[1m])`)
        const samples = Number(answer.data?.result[0]?.value[1] ?? 0)
        return samples >= SAMPLES_NEEDED
      })
    ])
    process.stdout.write(`proven queries: fleetsim and Prometheus ready after ${Date.now() - started} ms\n`)
  }, 60_000)

  afterAll(async () => {
    clearInterval(traffic)
    if (prometheus !== undefined && prometheus.exitCode === null) {
      const gone = new Promise((resolve) => prometheus?.once('exit', resolve))
      prometheus.kill('SIGTERM')
      await gone
    }
    await app?.close()
    await fleet?.close()
    if (dir !== '') rmSync(dir, { recursive: true, force: true })
  })

  it('finds fleetsim up', async () => {
    const answer = await promQuery(promBase, 'up{job="fleetsim"}')
    expect(answer.data?.result[0]?.value[1]).toBe('1')
  })

  it('evaluates every panel, annotation and variable query to series with values', async () => {
    const queries = dashboardQueries()
    expect(queries.length).toBeGreaterThan(40)
    const failures: string[] = []
    for (const query of queries) {
      const answer = await promQuery(promBase, query.expr)
      if (answer.status !== 'success') {
        failures.push(`${query.where}: invalid: ${answer.error}\n    ${query.expr}`)
        continue
      }
      const result = answer.data?.result ?? []
      if (result.length === 0) {
        failures.push(`${query.where}: no series\n    ${query.expr}`)
        continue
      }
      if (result.every((series) => Number.isNaN(Number(series.value[1])))) {
        failures.push(`${query.where}: only NaN\n    ${query.expr}`)
        continue
      }
      if (query.label !== undefined && !result.some((series) => query.label! in series.metric)) {
        failures.push(`${query.where}: no series with label ${query.label}\n    ${query.expr}`)
      }
    }
    expect(failures, `queries that failed:\n${failures.join('\n')}`).toEqual([])
  })
})
