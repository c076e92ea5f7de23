/**
 * index.html of a headless run: one self-contained page (uPlot and the fleet chart inlined,
 * no network) with the chart, the summary, the timeline events at their absolute virtual
 * times and the command that reproduces the run. Opened from the disk, it works offline.
 *
 * Everything from the scenario is escaped (escapeMarkup in text, scriptJson in the data), and a
 * Content-Security-Policy forbids every fetch, so the page can neither run nor load anything
 * it did not bring.
 */
import { AGENT_STATES } from '../protocol/states.js'
import { formatSeconds } from '../lib/units.js'
import { DETAIL_STATES, STACK_ORDER, STATE_COLOURS, peaks, percent, sinceStart } from './chart.js'
import { escapeMarkup, inlineScript, scriptJson } from './markup.js'
import type { RunResult } from './runner.js'

/** The browser files the page inlines (their text). */
export interface ChartAssets {
  uplotScript: string
  uplotStyle: string
  chartScript: string
  chartStyle: string
}

export interface ReportContext {
  /** the `fleetsim run` command that reproduces the run */
  command: string
  /** how the duration was chosen, when it was not given: said next to it */
  durationNote?: string
}

/** Events beyond this many are left to events.json: a table of thousands helps nobody. */
export const EVENT_ROWS = 500

const iso = (result: RunResult, second: number) => new Date(result.startTime + second * 1000).toISOString()
const n = (value: number) => value.toLocaleString('en-US')
const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? '' : 's'}`

const PAGE_STYLE = `
:root { color: #212121; background: #ffffff; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
body { margin: 0 auto; max-width: 1200px; padding: 16px 24px 48px; }
h1 { font-size: 1.6rem; margin: 0.4em 0 0.1em; }
h2 { font-size: 1.2rem; margin: 1.6em 0 0.5em; border-bottom: 1px solid #e0e0e0; }
.lead { color: #424242; margin: 0 0 0.6em; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 0; padding: 0; list-style: none; color: #424242; }
.alarm { color: #b71c1c; font-weight: 600; }
pre { background: #f5f5f5; border: 1px solid #e0e0e0; padding: 10px 12px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
table.data { border-collapse: collapse; font-size: 14px; margin: 4px 0 8px; }
table.data caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
table.data th, table.data td { padding: 3px 12px; border-bottom: 1px solid #e0e0e0; text-align: right; }
table.data th:first-child, table.data td.text { text-align: left; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 6px; vertical-align: -0.1em; }
.columns { display: flex; flex-wrap: wrap; gap: 8px 40px; align-items: flex-start; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.95em; }
`

export function renderIndexHtml(result: RunResult, assets: ChartAssets, context: ReportContext): string {
  const name = escapeMarkup(result.scenario.name)
  const final = result.final
  const peakOf = new Map(peaks(result.samples).map((p) => [p.state, p]))
  const lockout = result.lockouts.at(-1)
  const chartData = {
    options: {
      startTime: result.startTime,
      title: `${result.scenario.name}: agents by state over ${formatSeconds(result.durationSeconds)} of virtual time`,
      events: result.events.map((e) => ({ second: e.second, label: e.name })),
      lockouts: result.lockouts.map((l) => ({ from: l.from, to: l.to, label: 'manager lockout' }))
    },
    series: {
      seconds: result.samples.map((s) => s.second),
      byState: Object.fromEntries(AGENT_STATES.map((state) => [state, result.samples.map((s) => s.byState[state])]))
    }
  }

  const stateRows = [...STACK_ORDER]
    .reverse()
    .map((state) => {
      const peak = peakOf.get(state)
      const peakCells = DETAIL_STATES.includes(state)
        ? `<td>${peak === undefined ? '0' : `${n(peak.value)} (${percent(peak.share)})`}</td><td>${peak === undefined ? '–' : `${iso(result, peak.second)} (${sinceStart(peak.second)})`}</td>`
        : '<td>–</td><td>–</td>'
      return `<tr><th scope="row"><span class="swatch" style="background:${STATE_COLOURS[state]}"></span>${state}</th><td data-summary="final.${state}">${n(final.byState[state])}</td><td>${percent(final.agents > 0 ? final.byState[state] / final.agents : 0)}</td>${peakCells}</tr>`
    })
    .join('\n')

  const pairs = Object.entries(result.transitions.byPair).sort((a, b) => b[1] - a[1])
  const transitionRows = pairs.map(([pair, count]) => `<tr><td class="text">${escapeMarkup(pair.replace('->', ' → '))}</td><td>${n(count)}</td></tr>`).join('\n')

  const eventRows = result.events
    .slice(0, EVENT_ROWS)
    .map((e, k) => `<tr><td>${k + 1}</td><td class="text"><time datetime="${iso(result, e.second)}">${iso(result, e.second)}</time></td><td>${sinceStart(e.second)}</td><td class="text">${escapeMarkup(e.name)}</td><td class="text">${escapeMarkup(e.action)}</td></tr>`)
    .join('\n')
  const moreEvents = result.events.length > EVENT_ROWS ? `<p>${plural(result.events.length - EVENT_ROWS, 'more event')} in events.json.</p>` : ''

  const lockoutText =
    lockout === undefined
      ? 'No manager lockout'
      : lockout.to === null
        ? `<span class="alarm">Manager lockout since ${iso(result, lockout.from)}, still on at the end</span> (nobody calls agentmanager in a headless run)`
        : `Manager lockout from ${iso(result, lockout.from)} to ${iso(result, lockout.to)} (${formatSeconds(lockout.to - lockout.from)})`

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>${name}: fleetsim run report</title>
<style>${assets.uplotStyle}</style>
<style>${assets.chartStyle}</style>
<style>${PAGE_STYLE}</style>
<script>${inlineScript(assets.uplotScript)}</script>
<script>${inlineScript(assets.chartScript)}</script>
</head>
<body>
<main>
<h1>${name}</h1>
<p class="lead">${escapeMarkup(result.scenario.description)}</p>
<ul class="facts">
<li>from <b>${iso(result, 0)}</b> for <b data-summary="durationSeconds" data-value="${result.durationSeconds}">${formatSeconds(result.durationSeconds)}</b> of virtual time${context.durationNote === undefined ? '' : ` (${escapeMarkup(context.durationNote)})`}</li>
<li>seed <b>${result.scenario.seed}</b></li>
<li>sampled every ${formatSeconds(result.sampleSeconds)}</li>
<li><b data-summary="final.agents">${n(final.agents)}</b> agents at the end</li>
<li>ran in ${(result.wallMs / 1000).toFixed(1)} s</li>
</ul>

<h2 id="chart-heading">Agents by state</h2>
<p>Above: every state, stacked. Below: the states that are not ONLINE on a log scale, with their peaks. Dashed lines are timeline events; a striped band is a manager lockout. Times are virtual, in UTC. The summary below gives the chart's figures as text.</p>
<div id="chart"></div>
<script id="chart-data" type="application/json">${scriptJson(chartData)}</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById('chart-data').textContent)
  var chart = FleetChart.create(document.getElementById('chart'), data.options)
  chart.setData(data.series)
})()
</script>

<h2>Summary</h2>
<div class="columns">
<table class="data">
<caption>Agents by state</caption>
<thead><tr><th scope="col">State</th><th scope="col">At the end</th><th scope="col">Share</th><th scope="col">Peak</th><th scope="col">Peak at</th></tr></thead>
<tbody>
${stateRows}
</tbody>
</table>
<table class="data">
<caption>State transitions: <span data-summary="transitions.total">${n(result.transitions.total)}</span></caption>
<thead><tr><th scope="col">From → to</th><th scope="col">Count</th></tr></thead>
<tbody>
${transitionRows || '<tr><td class="text">none</td><td>0</td></tr>'}
</tbody>
</table>
</div>
<ul>
<li>Module crashes: <b data-summary="moduleCrashes">${n(result.moduleCrashes)}</b>; module restarts: <b data-summary="moduleRestarts">${n(result.moduleRestarts)}</b></li>
<li>Timeline events fired: <b data-summary="timelineEvents">${n(result.events.length)}</b></li>
<li>${lockoutText}</li>
<li>Fleet digest at the end: <code data-summary="digest">${result.digest}</code> (the same scenario, seed and flags give the same digest)</li>
</ul>

<h2>Timeline events</h2>
${
  result.events.length === 0
    ? '<p>No timeline events fired.</p>'
    : `<table class="data">
<caption>${plural(result.events.length, 'event')}, at their virtual times</caption>
<thead><tr><th scope="col">#</th><th scope="col">Time (UTC)</th><th scope="col">Since the start</th><th scope="col">Event</th><th scope="col">Action</th></tr></thead>
<tbody>
${eventRows}
</tbody>
</table>
${moreEvents}`
}

<h2>Reproduce this run</h2>
<pre><code>${escapeMarkup(context.command)}</code></pre>
<p>The scenario file, its seed (${result.scenario.seed}) and these flags fix the run: it gives the same time series and digest on any machine and with any <code>--workers</code>.</p>

<h2>Files</h2>
<ul>
<li><a href="chart.svg">chart.svg</a>: the same chart as an image</li>
<li><a href="states.csv">states.csv</a>, <a href="states.json">states.json</a>: agents by state at every sample</li>
<li><a href="events.json">events.json</a>: the timeline events</li>
<li><a href="summary.json">summary.json</a>: the figures of this page</li>
</ul>
</main>
</body>
</html>
`
}
