/**
 * Fleet: counts by state, live; the states over virtual time with the timeline events marked
 * (the shared fleet chart, web/chart/); the clock: virtual time beside wall time, pause,
 * resume, speed, advance. The counts are in the page as served, so they show at once, and the
 * `fleet` topic of the stream keeps them live. The clock buttons call the admin API through
 * the console (POST /console/api/admin/clock, …/clock/advance), so they answer as it does.
 */
import { AGENT_STATES } from '../../protocol/states.js'
import { CHART_SCRIPTS, CHART_STYLES } from '../assets.js'
import { fleetSummary } from '../fleet-topic.js'
import { html } from '../markup.js'
import { ASSETS } from '../paths.js'
import type { ConsolePage } from '../page.js'

/** The chart's stacking order: calm first, alarms last. */
export const STATE_ORDER = ['ONLINE', 'ERROR', 'UNTRUSTED', 'FORGED', 'UNMANAGED', 'OFFLINE'] as const satisfies ReadonlyArray<(typeof AGENT_STATES)[number]>

export const fleetPage: ConsolePage = {
  id: 'fleet',
  title: 'Fleet',
  path: '/fleet',
  scripts: [...CHART_SCRIPTS, `${ASSETS}/fleet.js`],
  styles: CHART_STYLES,
  body(_params, { engine }) {
    const summary = fleetSummary(engine)
    const share = (n: number) => (summary.agents === 0 ? '0%' : `${((100 * n) / summary.agents).toFixed(1)}%`)
    const rows = STATE_ORDER.map(
      (state) => html`<tr data-state="${state}"><th scope="row"><span class="swatch state-${state.toLowerCase()}" aria-hidden="true"></span>${state}</th><td class="num" data-count>${summary.byState[state].toLocaleString('en-US')}</td><td class="num" data-share>${share(summary.byState[state])}</td></tr>`
    )
    return html`<h1>Fleet</h1>
<div class="columns">
<section class="panel" aria-labelledby="counts-title">
  <h2 id="counts-title">Agents by state</h2>
  <table id="counts" class="counts" data-agents="${summary.agents}">
    <caption class="visually-hidden">Agents by state, updated live</caption>
    <thead><tr><th scope="col">State</th><th scope="col" class="num">Agents</th><th scope="col" class="num">Share</th></tr></thead>
    <tbody>${rows}</tbody>
    <tfoot><tr><th scope="row">Total</th><td class="num" id="total">${summary.agents.toLocaleString('en-US')}</td><td class="num">100%</td></tr></tfoot>
  </table>
  <p class="note" id="scenario">${summary.scenario === null ? 'Default fleet (no scenario)' : `Scenario: ${summary.scenario}`}</p>
</section>
<section class="panel" aria-labelledby="clock-title">
  <h2 id="clock-title">Clock</h2>
  <dl class="times">
    <div><dt>Virtual time</dt><dd><time id="virtual-time" data-ms="${summary.virtualMs}">${new Date(summary.virtualMs).toISOString()}</time></dd></div>
    <div><dt>Wall time</dt><dd><time id="wall-time">${new Date(summary.wallMs).toISOString()}</time></dd></div>
    <div><dt>Speed</dt><dd id="speed">${summary.speed}×</dd></div>
    <div><dt>Clock</dt><dd id="clock-state">${summary.paused ? 'paused' : 'running'}</dd></div>
  </dl>
  <div class="controls">
    <button type="button" id="pause">Pause</button>
    <button type="button" id="resume">Resume</button>
  </div>
  <form id="speed-form" class="inline">
    <label for="speed-input">Speed (virtual seconds per second)</label>
    <input id="speed-input" name="speed" type="number" min="0" step="any" inputmode="decimal" value="${summary.speed}" required>
    <button type="submit">Set speed</button>
  </form>
  <form id="advance-form" class="inline">
    <label for="advance-input">Advance by (e.g. 30s, 5m, 1h)</label>
    <input id="advance-input" name="seconds" type="text" value="1h" required autocomplete="off" spellcheck="false">
    <button type="submit">Advance</button>
  </form>
  <p id="clock-message" class="message" role="status" aria-live="polite"></p>
</section>
</div>
<section class="panel" aria-labelledby="chart-title">
  <h2 id="chart-title">States over virtual time</h2>
  <div id="chart" class="chart"><p class="note">The chart appears once the live stream has started.</p></div>
</section>`
  }
}
