/** Shared pieces of the metrics tests: a hand-driven metrics source and an exposition parser. */
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { AGENT_STATES } from '../../src/protocol/states.js'
import { emptyStats, type FleetStats } from '../../src/fleet/fleet.js'
import type { MetricsSource, ScenarioSummary } from '../../src/metrics/source.js'

export interface FakeSource extends MetricsSource {
  stats: FleetStats
  byState: Record<string, number>
  scenario: ScenarioSummary | undefined
  virtualSecond: number
  second(): number
}

/** A source whose figures the test sets directly. */
export function fakeSource(): FakeSource {
  const byState = Object.fromEntries(AGENT_STATES.map((state) => [state, 0]))
  const source: FakeSource = {
    byState,
    scenario: undefined,
    virtualSecond: 0,
    stats: emptyStats(),
    counts: () => ({ agents: Object.values(byState).reduce((a, b) => a + b, 0), byState: { ...byState } as never }),
    composition: () => ({ byMode: { Connect: 1 }, byVersion: { '6.4.9991': 1 }, modulesByStatus: { RUNNING: 2 }, scanMs: 0.5 }),
    clockState: () => ({ now: 1_700_000_000_000, speed: 60, paused: false }),
    lagSeconds: () => 0,
    poolStats: () => ({ utilization: 0.25, queueSize: 0, threads: 2 }),
    connectedCount: () => byState.ONLINE,
    scenarioInfo: () => source.scenario,
    second: () => source.virtualSecond
  }
  return source
}

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** Samples of a Prometheus text exposition (enough of the format for prom-client's output). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null) throw new Error(`unparsable exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2]
    samples.push({ name: match[1], labels, value: Number(match[3]) })
  }
  return samples
}

/** The value of the one sample with this name and these labels (undefined when absent). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value
}

/** A program on the PATH (Debian's prometheus package installs /usr/bin/prometheus and /usr/bin/promtool), or undefined. */
export function onPath(name: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path))
}

/** Whether the suite runs under CI=true: a tool .ci/run installs is then required, not skipped. */
export const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false'
