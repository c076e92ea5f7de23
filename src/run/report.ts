/**
 * The files of a headless run's report: index.html (chart, summary, events and the command,
 * in one page), states.csv and states.json (the time series), chart.svg, events.json
 * (timeline events with their virtual times) and summary.json (final counts, transitions,
 * lockouts, digest, the command).
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { makeDirs } from '../lib/make-dirs.js'
import { replaceFiles } from '../lib/replace-files.js'
import { UPLOT_FILES, webPath } from '../lib/web-assets.js'
import { AGENT_STATES } from '../protocol/states.js'
import { renderChart } from './chart.js'
import { renderIndexHtml, type ChartAssets, type ReportContext } from './report-html.js'
import type { RunResult } from './runner.js'

export const REPORT_FILES = ['index.html', 'states.csv', 'states.json', 'chart.svg', 'events.json', 'summary.json'] as const

/**
 * Whether `dir` holds the report of an earlier `fleetsim run` (its summary.json, read as one): a
 * run replaces such a report, and refuses to replace files of these names that are not one.
 */
export async function isEarlierReport(dir: string): Promise<boolean> {
  try {
    const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>
    return typeof summary.digest === 'string' && typeof summary.durationSeconds === 'number' && typeof summary.command === 'string' && 'scenario' in summary
  } catch {
    return false
  }
}

const iso = (result: RunResult, second: number) => new Date(result.startTime + second * 1000).toISOString()

export function statesCsv(result: RunResult): string {
  const header = ['second', 'time', 'agents', ...AGENT_STATES].join(',')
  const rows = result.samples.map((s) => [s.second, iso(result, s.second), s.agents, ...AGENT_STATES.map((state) => s.byState[state])].join(','))
  return `${[header, ...rows].join('\n')}\n`
}

export function statesJson(result: RunResult) {
  return {
    scenario: result.scenario.name,
    startTime: iso(result, 0),
    sampleSeconds: result.sampleSeconds,
    states: AGENT_STATES,
    samples: result.samples.map((s) => ({ ...s, time: iso(result, s.second) }))
  }
}

export function eventsJson(result: RunResult) {
  return result.events.map((e) => ({ ...e, time: iso(result, e.second) }))
}

export function summaryJson(result: RunResult, context: ReportContext) {
  return {
    scenario: result.scenario,
    command: context.command,
    startTime: iso(result, 0),
    durationSeconds: result.durationSeconds,
    final: { ...result.final, time: iso(result, result.final.second) },
    transitions: result.transitions,
    timelineEvents: result.events.length,
    moduleCrashes: result.moduleCrashes,
    moduleRestarts: result.moduleRestarts,
    lockouts: result.lockouts.map((l) => ({ ...l, fromTime: iso(result, l.from), toTime: l.to === null ? null : iso(result, l.to) })),
    lockedOut: result.lockedOut,
    digest: result.digest,
    wallMs: result.wallMs
  }
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

/** The browser files index.html inlines: uPlot and the fleet chart (web/chart/). */
export async function chartAssets(): Promise<ChartAssets> {
  const [uplotScript, uplotStyle, chartScript, chartStyle] = await Promise.all(
    [UPLOT_FILES.script, UPLOT_FILES.style, webPath('chart', 'fleet-chart.js'), webPath('chart', 'fleet-chart.css')].map((path) => readFile(path, 'utf8'))
  )
  return { uplotScript, uplotStyle, chartScript, chartStyle }
}

/** Writes every report file into dir (created if missing); returns their paths. */
export async function writeReport(dir: string, result: RunResult, context: ReportContext): Promise<string[]> {
  await makeDirs(dir)
  const contents: Record<(typeof REPORT_FILES)[number], string> = {
    'index.html': renderIndexHtml(result, await chartAssets(), context),
    'states.csv': statesCsv(result),
    'states.json': json(statesJson(result)),
    'chart.svg': renderChart(result),
    'events.json': json(eventsJson(result)),
    'summary.json': json(summaryJson(result, context))
  }
  const files = REPORT_FILES.map((name) => [join(dir, name), contents[name]] as const)
  // All or none: an earlier report stays whole when a write fails (replace-files.ts).
  await replaceFiles(files)
  return files.map(([path]) => path)
}
