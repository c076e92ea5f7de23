/**
 * The run's chart as a hand-written SVG: agents by state over virtual time as stacked areas,
 * with axes, a legend, and a dashed marker at every timeline event (lettered, explained below
 * the axis). No dependencies: the SVG is text built from the samples.
 */
import type { AgentStateName } from '../protocol/states.js'
import { formatSeconds } from '../lib/units.js'
import type { FiredEvent, RunResult } from './runner.js'

/** Bottom to top: healthy first, gone last, so trouble reads as bands eating into green. */
export const STACK_ORDER: readonly AgentStateName[] = ['ONLINE', 'ERROR', 'UNTRUSTED', 'FORGED', 'UNMANAGED', 'OFFLINE']
export const STATE_COLOURS: Readonly<Record<AgentStateName, string>> = {
  ONLINE: '#43a047',
  ERROR: '#fb8c00',
  UNTRUSTED: '#8e24aa',
  FORGED: '#e53935',
  UNMANAGED: '#9e9e9e',
  OFFLINE: '#37474f'
}

const WIDTH = 1000
const MARGIN = { left: 70, right: 190, top: 56, bottom: 70 }
const PLOT_HEIGHT = 380
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right
const EVENT_LINE_HEIGHT = 16
const TIME_STEPS = [60, 300, 600, 900, 1800, 3600, 7200, 10800, 14400, 21600, 43200, 86400, 172800, 604800]

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const fixed = (n: number) => Number(n.toFixed(1))

/** A round step giving at most about `count` ticks up to max. */
export function niceStep(max: number, count: number): number {
  if (max <= 0) return 1
  const raw = max / count
  const power = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= raw) return Math.max(1, m * power)
  return 10 * power
}

function timeLabel(seconds: number): string {
  return seconds === 0 ? '0' : formatSeconds(seconds)
}

interface EventGroup {
  letter: string
  name: string
  action: string
  seconds: number[]
}

function groupEvents(events: readonly FiredEvent[]): EventGroup[] {
  const groups = new Map<string, EventGroup>()
  for (const event of events) {
    let group = groups.get(event.name)
    if (group === undefined) {
      group = { letter: String.fromCharCode(65 + (groups.size % 26)), name: event.name, action: event.action, seconds: [] }
      groups.set(event.name, group)
    }
    group.seconds.push(event.second)
  }
  return [...groups.values()]
}

export function renderChart(result: RunResult): string {
  const { samples, durationSeconds } = result
  const groups = groupEvents(result.events)
  const height = MARGIN.top + PLOT_HEIGHT + MARGIN.bottom + groups.length * EVENT_LINE_HEIGHT + 10
  const maxAgents = Math.max(1, ...samples.map((s) => s.agents))
  const yStep = niceStep(maxAgents, 5)
  const yMax = Math.ceil(maxAgents / yStep) * yStep
  const x = (second: number) => fixed(MARGIN.left + (second / durationSeconds) * PLOT_WIDTH)
  const y = (agents: number) => fixed(MARGIN.top + PLOT_HEIGHT - (agents / yMax) * PLOT_HEIGHT)
  const out: string[] = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="24" font-size="17" font-weight="bold">${escapeXml(result.scenario.name)}: agents by state over ${timeLabel(durationSeconds)} of virtual time</text>`,
    `<text x="${MARGIN.left}" y="42" fill="#555">seed ${result.scenario.seed} · sampled every ${timeLabel(result.sampleSeconds)} · final digest ${result.digest.slice(0, 16)}…</text>`
  )

  // Stacked areas: each layer from the running total below it to that total plus its count.
  const lower = samples.map(() => 0)
  for (const state of STACK_ORDER) {
    const upper = samples.map((s, k) => lower[k] + s.byState[state])
    if (upper.some((u, k) => u !== lower[k])) {
      const top = samples.map((s, k) => `${x(s.second)},${y(upper[k])}`)
      const bottom = samples.map((s, k) => `${x(s.second)},${y(lower[k])}`).reverse()
      out.push(`<path d="M${top.join('L')}L${bottom.join('L')}Z" fill="${STATE_COLOURS[state]}" fill-opacity="0.85" stroke="${STATE_COLOURS[state]}" stroke-width="0.5"><title>${state}</title></path>`)
    }
    upper.forEach((u, k) => (lower[k] = u))
  }

  // Axes with grid lines.
  const plotBottom = MARGIN.top + PLOT_HEIGHT
  for (let v = 0; v <= yMax; v += yStep) {
    out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + PLOT_WIDTH}" y1="${y(v)}" y2="${y(v)}" stroke="#000" stroke-opacity="${v === 0 ? 0.8 : 0.12}"/>`)
    out.push(`<text x="${MARGIN.left - 8}" y="${y(v) + 4}" text-anchor="end">${v.toLocaleString('en-US')}</text>`)
  }
  const timeStep = TIME_STEPS.find((s) => durationSeconds / s <= 8) ?? Math.ceil(durationSeconds / 8)
  for (let t = 0; t <= durationSeconds; t += timeStep) {
    out.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${plotBottom}" y2="${plotBottom + 5}" stroke="#000"/>`)
    out.push(`<text x="${x(t)}" y="${plotBottom + 19}" text-anchor="middle">${timeLabel(t)}</text>`)
  }
  out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${plotBottom}" stroke="#000" stroke-opacity="0.8"/>`)
  out.push(`<text x="${MARGIN.left + PLOT_WIDTH / 2}" y="${plotBottom + 40}" text-anchor="middle" fill="#333">virtual time since the scenario start</text>`)
  out.push(`<text transform="translate(18 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)" text-anchor="middle" fill="#333">agents</text>`)

  // Event markers: a dashed line per occurrence, its letter above the plot where there is room.
  let lastLabelX = -Infinity
  const occurrences = groups.flatMap((g) => g.seconds.map((second) => ({ second, letter: g.letter }))).sort((a, b) => a.second - b.second)
  for (const { second, letter } of occurrences) {
    const at = x(second)
    out.push(`<line x1="${at}" x2="${at}" y1="${MARGIN.top}" y2="${plotBottom}" stroke="#111" stroke-opacity="0.55" stroke-dasharray="4 3"/>`)
    if (at - lastLabelX >= 12) {
      out.push(`<text x="${at}" y="${MARGIN.top - 3}" text-anchor="middle" font-weight="bold" font-size="11">${letter}</text>`)
      lastLabelX = at
    }
  }

  // Legends: states on the right (top of the stack first), events below the axis.
  const legendX = MARGIN.left + PLOT_WIDTH + 20
  out.push(`<text x="${WIDTH - 12}" y="${MARGIN.top - 6}" text-anchor="end" fill="#666">at end</text>`)
  ;[...STACK_ORDER].reverse().forEach((state, k) => {
    const top = MARGIN.top + k * 22
    const final = result.final.byState[state]
    out.push(`<rect x="${legendX}" y="${top}" width="14" height="14" fill="${STATE_COLOURS[state]}"/>`)
    out.push(`<text x="${legendX + 20}" y="${top + 11}">${state}</text>`)
    out.push(`<text x="${WIDTH - 12}" y="${top + 11}" text-anchor="end" fill="#666">${final.toLocaleString('en-US')}</text>`)
  })
  const eventsTop = plotBottom + MARGIN.bottom - 6
  groups.forEach((g, k) => {
    const when = g.seconds.length === 1 ? `at ${timeLabel(g.seconds[0])}` : `×${g.seconds.length}, first at ${timeLabel(g.seconds[0])}`
    out.push(`<text x="${MARGIN.left}" y="${eventsTop + k * EVENT_LINE_HEIGHT}"><tspan font-weight="bold">${g.letter}</tspan>  ${escapeXml(g.name)} (${escapeXml(g.action)}) ${when}</text>`)
  })
  if (groups.length === 0) out.push(`<text x="${MARGIN.left}" y="${eventsTop}" fill="#666">no timeline events fired</text>`)
  out.push('</svg>')
  return `${out.join('\n')}\n`
}

