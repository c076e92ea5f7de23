/**
 * The run's chart as a hand-written SVG, telling the same story as the fleet chart of
 * index.html (web/chart/fleet-chart.js): a main panel with every state as stacked areas, a
 * second panel with the states that are not ONLINE as lines on a log scale (so 0.5% FORGED is
 * visible next to 99% ONLINE) with their peaks marked, a dashed marker per timeline event
 * (lettered, explained below), manager lockouts as a striped band that says whether the lock
 * is still on, and absolute virtual times (UTC) on the axis. No dependencies: the SVG is text
 * built from the samples; every text from the scenario is escaped.
 */
import type { AgentStateName } from '../protocol/states.js'
import { formatSeconds } from '../lib/units.js'
import { escapeMarkup } from './markup.js'
import type { FiredEvent, RunResult, StateSample } from './runner.js'
import { maxOf } from '../lib/extremes.js'
import { minMaxPerColumn } from './decimate.js'

/** Bottom to top: healthy first, gone last, so trouble reads as bands eating into green. */
export const STACK_ORDER: readonly AgentStateName[] = ['ONLINE', 'ERROR', 'UNTRUSTED', 'FORGED', 'UNMANAGED', 'OFFLINE']
/** ONLINE calm, UNMANAGED neutral, trouble in warning and alarm colours (as fleet-chart.js). */
export const STATE_COLOURS: Readonly<Record<AgentStateName, string>> = {
  ONLINE: '#43a047',
  ERROR: '#f57c00',
  UNTRUSTED: '#c79100',
  FORGED: '#ad1457',
  UNMANAGED: '#78909c',
  OFFLINE: '#d32f2f'
}
/** The states of the second panel: all but ONLINE. */
export const DETAIL_STATES: readonly AgentStateName[] = STACK_ORDER.filter((state) => state !== 'ONLINE')
/** Line styles of the second panel, so states differ by more than their colour. */
const DASHES: Readonly<Partial<Record<AgentStateName, string>>> = { UNTRUSTED: '8 4', FORGED: '2 3', UNMANAGED: '12 3 2 3' }

const WIDTH = 1000
const MARGIN = { left: 78, right: 200, top: 64 }
const MAIN_HEIGHT = 300
const GAP = 48
const DETAIL_HEIGHT = 170
const AXIS_HEIGHT = 62
/** The plot's width in pixels (SVG units): a series is drawn with at most two points per pixel column. */
export const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right
const EVENT_LINE_HEIGHT = 16
const TIME_STEPS = [60, 300, 600, 900, 1800, 3600, 7200, 10800, 14400, 21600, 43200, 86400, 172800, 604800]

const fixed = (n: number) => Number(n.toFixed(1))

/** A round step giving at most about `count` ticks up to max. */
export function niceStep(max: number, count: number): number {
  if (max <= 0) return 1
  const raw = max / count
  const power = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= raw) return Math.max(1, m * power)
  return 10 * power
}

const pad = (n: number) => String(n).padStart(2, '0')

/** `00:15` (UTC); `01-02 00:15` with the day. */
export function clockTime(ms: number, withDay = false): string {
  const d = new Date(ms)
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`
  return withDay ? `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${time}` : time
}

/** Tick seconds (since the run's start) at round absolute times: every `step` of UTC. */
export function timeTicks(startMs: number, durationSeconds: number, step: number): number[] {
  const start = startMs / 1000
  const ticks: number[] = []
  for (let t = Math.ceil(start / step) * step - start; t <= durationSeconds; t += step) ticks.push(fixed(t))
  return ticks
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

export interface Peak {
  state: AgentStateName
  value: number
  second: number
  /** share of all agents at that second, 0..1 */
  share: number
}

/** The largest count of each state in DETAIL_STATES that was ever above 0 (the first sample at it). */
export function peaks(samples: readonly StateSample[]): Peak[] {
  const out: Peak[] = []
  for (const state of DETAIL_STATES) {
    let best: StateSample | undefined
    for (const sample of samples) if (sample.byState[state] > (best?.byState[state] ?? 0)) best = sample
    if (best !== undefined) out.push({ state, value: best.byState[state], second: best.second, share: best.agents > 0 ? best.byState[state] / best.agents : 0 })
  }
  return out
}

/** `+10m`: virtual time since the run's start (`+0s` at the start). */
export const sinceStart = (second: number) => `+${second === 0 ? '0s' : formatSeconds(second)}`

export const percent = (share: number) => `${(share * 100).toFixed(share < 0.01 ? 2 : 1)}%`

export function renderChart(result: RunResult): string {
  const { samples, durationSeconds, startTime } = result
  const groups = groupEvents(result.events)
  const mainTop = MARGIN.top
  const mainBottom = mainTop + MAIN_HEIGHT
  const detailTop = mainBottom + GAP
  const detailBottom = detailTop + DETAIL_HEIGHT
  const height = detailBottom + AXIS_HEIGHT + Math.max(1, groups.length) * EVENT_LINE_HEIGHT + 10
  const withDay = durationSeconds > 86_400
  const at = (second: number) => clockTime(startTime + second * 1000, withDay)
  const x = (second: number) => fixed(MARGIN.left + (second / durationSeconds) * PLOT_WIDTH)

  const maxAgents = maxOf(samples.map((s) => s.agents), 1)
  const yStep = niceStep(maxAgents, 5)
  const yMax = Math.ceil(maxAgents / yStep) * yStep
  const y = (agents: number) => fixed(mainBottom - (agents / yMax) * MAIN_HEIGHT)
  // The second panel: asinh, linear near 0 and logarithmic above, so 0 sits on the axis.
  const detailMax = Math.max(10, 3 * maxOf(samples.flatMap((s) => DETAIL_STATES.map((state) => s.byState[state])), 0))
  const yDetail = (agents: number) => fixed(detailBottom - (Math.asinh(agents) / Math.asinh(detailMax)) * DETAIL_HEIGHT)
  // A run of days at --sample 1s has hundreds of thousands of samples for 722 pixel columns: each
  // series is drawn with its lowest and highest sample per column, so a short outage still shows.
  const columns = samples.map((s) => (s.second / durationSeconds) * PLOT_WIDTH)
  const drawn = (values: readonly number[]) => minMaxPerColumn(columns, values, PLOT_WIDTH)

  const out: string[] = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12" role="img" aria-labelledby="chart-title">`,
    `<title id="chart-title">${escapeMarkup(result.scenario.name)}: agents by state from ${new Date(startTime).toISOString()} over ${formatSeconds(durationSeconds)} of virtual time</title>`,
    '<defs><pattern id="lockout-stripes" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="10" height="10" fill="#212121" fill-opacity="0.16"/><line x1="0" y1="0" x2="0" y2="10" stroke="#ffffff" stroke-opacity="0.4" stroke-width="3"/></pattern></defs>',
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="24" font-size="17" font-weight="bold">${escapeMarkup(result.scenario.name)}: agents by state over ${formatSeconds(durationSeconds)} of virtual time</text>`,
    `<text x="${MARGIN.left}" y="42" fill="#555">from ${new Date(startTime).toISOString()} · seed ${result.scenario.seed} · sampled every ${formatSeconds(result.sampleSeconds)} · final digest ${result.digest.slice(0, 16)}…</text>`
  )

  // Main panel: stacked areas, each layer from the running total below it to that total plus its count.
  const lower = samples.map(() => 0)
  for (const state of STACK_ORDER) {
    const upper = samples.map((s, k) => lower[k] + s.byState[state])
    if (upper.some((u, k) => u !== lower[k])) {
      // Each boundary (a running total) is decimated on its own, the same way wherever it is drawn,
      // so a layer's bottom is exactly the top of the layer below it.
      const top = drawn(upper).map((k) => `${x(samples[k].second)},${y(upper[k])}`)
      const bottom = drawn(lower).map((k) => `${x(samples[k].second)},${y(lower[k])}`).reverse()
      out.push(`<path d="M${top.join('L')}L${bottom.join('L')}Z" fill="${STATE_COLOURS[state]}" stroke="${STATE_COLOURS[state]}" stroke-width="0.5"><title>${state}</title></path>`)
    }
    upper.forEach((u, k) => (lower[k] = u))
  }
  for (let v = 0; v <= yMax; v += yStep) {
    out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + PLOT_WIDTH}" y1="${y(v)}" y2="${y(v)}" stroke="#000" stroke-opacity="${v === 0 ? 0.8 : 0.12}"/>`)
    out.push(`<text x="${MARGIN.left - 8}" y="${y(v) + 4}" text-anchor="end">${v.toLocaleString('en-US')}</text>`)
  }
  out.push(`<text transform="translate(18 ${mainTop + MAIN_HEIGHT / 2}) rotate(-90)" text-anchor="middle" fill="#333">agents, all states (stacked)</text>`)

  // Second panel: one line per state that is not ONLINE.
  for (let v = 0; v <= detailMax; v = v === 0 ? 1 : v * 10) {
    out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + PLOT_WIDTH}" y1="${yDetail(v)}" y2="${yDetail(v)}" stroke="#000" stroke-opacity="${v === 0 ? 0.8 : 0.12}"/>`)
    out.push(`<text x="${MARGIN.left - 8}" y="${yDetail(v) + 4}" text-anchor="end">${v.toLocaleString('en-US')}</text>`)
  }
  for (const state of DETAIL_STATES) {
    if (!samples.some((s) => s.byState[state] > 0)) continue
    const dash = DASHES[state] === undefined ? '' : ` stroke-dasharray="${DASHES[state]}"`
    const values = samples.map((s) => s.byState[state])
    const points = drawn(values).map((k) => `${x(samples[k].second)},${yDetail(values[k])}`)
    out.push(`<path d="M${points.join('L')}" fill="none" stroke="${STATE_COLOURS[state]}" stroke-width="2"${dash}><title>${state}</title></path>`)
  }
  out.push(`<text transform="translate(18 ${detailTop + DETAIL_HEIGHT / 2}) rotate(-90)" text-anchor="middle" fill="#333">not ONLINE (log)</text>`)

  // Lockouts: a striped band over both panels, labelled in the main one.
  for (const lockout of result.lockouts) {
    const left = x(lockout.from)
    const right = x(lockout.to ?? durationSeconds)
    const label =
      lockout.to === null ? `manager lockout since ${at(lockout.from)}: still on` : `manager lockout ${at(lockout.from)}–${at(lockout.to)} (${formatSeconds(lockout.to - lockout.from)})`
    for (const [top, bottom] of [
      [mainTop, mainBottom],
      [detailTop, detailBottom]
    ]) {
      out.push(`<rect class="lockout" x="${left}" y="${top}" width="${fixed(Math.max(2, right - left))}" height="${bottom - top}" fill="url(#lockout-stripes)" stroke="#212121" stroke-opacity="0.7"/>`)
    }
    const labelWidth = label.length * 6.6 + 12
    const labelX = fixed(Math.min(left + 6, MARGIN.left + PLOT_WIDTH - labelWidth))
    out.push(`<rect x="${labelX}" y="${mainTop + 8}" width="${fixed(labelWidth)}" height="20" fill="#ffffff" fill-opacity="0.92" stroke="#212121"/>`)
    out.push(`<text x="${labelX + 6}" y="${mainTop + 22}" font-weight="bold">${label}</text>`)
  }

  // Peaks of the second panel's states, labels moved down where they would overlap.
  const placed: Array<{ x: number; y: number; width: number }> = []
  for (const peak of peaks(samples).sort((a, b) => b.value - a.value)) {
    const px = x(peak.second)
    const py = yDetail(peak.value)
    const text = `${peak.state} peak ${peak.value.toLocaleString('en-US')} (${percent(peak.share)}) at ${at(peak.second)}`
    const width = text.length * 6.4
    const tx = fixed(px + 8 + width > MARGIN.left + PLOT_WIDTH ? px - 8 - width : px + 8)
    let ty = Math.max(detailTop + 10, py + 4)
    for (const p of placed) if (Math.abs(p.y - ty) < 14 && tx < p.x + p.width && tx + width > p.x) ty = p.y + 14
    placed.push({ x: tx, y: ty, width })
    out.push(`<circle cx="${px}" cy="${py}" r="4" fill="${STATE_COLOURS[peak.state]}"/>`)
    out.push(`<rect x="${fixed(tx - 2)}" y="${fixed(ty - 11)}" width="${fixed(width + 4)}" height="14" fill="#ffffff" fill-opacity="0.85"/>`)
    out.push(`<text class="peak" x="${tx}" y="${fixed(ty)}" font-weight="bold" fill="${STATE_COLOURS[peak.state]}">${text}</text>`)
  }

  // Time axis: absolute virtual times (UTC) at round times, grid lines through both panels.
  const timeStep = TIME_STEPS.find((s) => durationSeconds / s <= 8) ?? Math.ceil(durationSeconds / 8)
  const ticks = timeTicks(startTime, durationSeconds, timeStep)
  let lastDay = ''
  for (const t of ticks) {
    const day = new Date(startTime + t * 1000).toISOString().slice(0, 10)
    for (const [top, bottom] of [
      [mainTop, mainBottom],
      [detailTop, detailBottom]
    ]) {
      out.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${top}" y2="${bottom}" stroke="#000" stroke-opacity="0.08"/>`)
      out.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${bottom}" y2="${bottom + 5}" stroke="#000"/>`)
    }
    out.push(`<text x="${x(t)}" y="${mainBottom + 19}" text-anchor="middle" fill="#555">${clockTime(startTime + t * 1000)}</text>`)
    out.push(`<text x="${x(t)}" y="${detailBottom + 19}" text-anchor="middle">${clockTime(startTime + t * 1000)}</text>`)
    if (day !== lastDay) out.push(`<text x="${x(t)}" y="${detailBottom + 34}" text-anchor="middle" fill="#555">${day}</text>`)
    lastDay = day
  }
  for (const [top, bottom] of [
    [mainTop, mainBottom],
    [detailTop, detailBottom]
  ]) {
    out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${top}" y2="${bottom}" stroke="#000" stroke-opacity="0.8"/>`)
  }
  out.push(`<text x="${MARGIN.left + PLOT_WIDTH / 2}" y="${detailBottom + 50}" text-anchor="middle" fill="#333">virtual time (UTC)</text>`)

  // Event markers: a dashed line per occurrence through both panels, its letter above the plot where there is room.
  // One line per pixel column: occurrences a column apart draw the same picture, and an event
  // every second of a long run drew 86,400 lines, one per occurrence.
  let lastLabelX = -Infinity
  let lastColumn = -Infinity
  const occurrences = groups.flatMap((g) => g.seconds.map((second) => ({ second, letter: g.letter }))).sort((a, b) => a.second - b.second)
  for (const { second, letter } of occurrences) {
    const ex = x(second)
    const column = Math.round(ex)
    if (column === lastColumn) continue
    lastColumn = column
    out.push(`<line class="event" x1="${ex}" x2="${ex}" y1="${mainTop}" y2="${detailBottom}" stroke="#111" stroke-opacity="0.55" stroke-dasharray="4 3"/>`)
    if (ex - lastLabelX >= 12) {
      out.push(`<text x="${ex}" y="${mainTop - 4}" text-anchor="middle" font-weight="bold" font-size="11">${letter}</text>`)
      lastLabelX = ex
    }
  }

  // Legends: states on the right (top of the stack first) with final counts, events below the axis.
  const legendX = MARGIN.left + PLOT_WIDTH + 20
  out.push(`<text x="${WIDTH - 12}" y="${mainTop - 6}" text-anchor="end" fill="#555">at end</text>`)
  ;[...STACK_ORDER].reverse().forEach((state, k) => {
    const top = mainTop + k * 22
    out.push(`<rect x="${legendX}" y="${top}" width="14" height="14" fill="${STATE_COLOURS[state]}"/>`)
    out.push(`<text x="${legendX + 20}" y="${top + 11}">${state}</text>`)
    out.push(`<text x="${WIDTH - 12}" y="${top + 11}" text-anchor="end" fill="#555">${result.final.byState[state].toLocaleString('en-US')}</text>`)
  })
  const eventsTop = detailBottom + AXIS_HEIGHT + 6
  groups.forEach((g, k) => {
    const first = `${at(g.seconds[0])} (${sinceStart(g.seconds[0])})`
    const when = g.seconds.length === 1 ? `at ${first}` : `×${g.seconds.length}, first at ${first}`
    out.push(`<text x="${MARGIN.left}" y="${eventsTop + k * EVENT_LINE_HEIGHT}"><tspan font-weight="bold">${g.letter}</tspan>  ${escapeMarkup(g.name)} (${escapeMarkup(g.action)}) ${when}</text>`)
  })
  if (groups.length === 0) out.push(`<text x="${MARGIN.left}" y="${eventsTop}" fill="#555">no timeline events fired</text>`)
  out.push('</svg>')
  return `${out.join('\n')}\n`
}
