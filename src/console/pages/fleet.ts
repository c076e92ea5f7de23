/**
 * Fleet: counts by state, live; the states over virtual time with the timeline events marked
 * (the shared fleet chart, web/chart/); the clock: virtual time beside wall time, pause,
 * resume, speed, advance. The counts are in the page as served, so they show at once, and the
 * `fleet` topic of the stream keeps them live. The clock buttons call the admin API through
 * the console (POST /console/api/admin/clock), so they answer as it does; Advance goes through
 * POST /console/api/fleet/advance (below), which runs the admin API's advance in steps.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { MAX_ADVANCE_SECONDS } from '../../admin/routes/clock.js'
import { parseDuration } from '../../lib/units.js'
import { AGENT_STATES } from '../../protocol/states.js'
import { CHART_SCRIPTS, CHART_STYLES } from '../assets.js'
import { fleetSummary } from '../fleet-topic.js'
import { html } from '../markup.js'
import { ASSETS } from '../paths.js'
import type { ConsoleContext, ConsolePage } from '../page.js'
import { CONSOLE_USER_AGENT } from '../proxy.js'

/** The chart's stacking order: calm first, alarms last. */
export const STATE_ORDER = ['ONLINE', 'ERROR', 'UNTRUSTED', 'FORGED', 'UNMANAGED', 'OFFLINE'] as const satisfies ReadonlyArray<(typeof AGENT_STATES)[number]>

/** An advance is cut into at most this many steps, each a sample of the chart... */
export const ADVANCE_STEPS = 60
/** ...of at least this many virtual seconds. */
export const MIN_ADVANCE_STEP = 60

/**
 * Advances the clock by `seconds` as POST /__admin/clock/advance does, in steps with a sample
 * of the chart after each, so an hour advanced at once is drawn as an hour, not as a straight
 * line. The fleet ends where one call would have left it (a run does not depend on how it was
 * cut into steps; docs/architecture.md, "Exact integer counters"). The answer is the admin
 * API's: its error for a value it refuses (sent to it as given), its clock after the last step.
 */
async function advanceInSteps(body: unknown, context: ConsoleContext): Promise<LightMyRequestResponse> {
  const { admin } = context.credentials
  const advance = (payload: unknown) =>
    context.inject({
      method: 'POST',
      url: '/__admin/clock/advance',
      headers: { rest_user: admin.user, rest_password: admin.password, 'content-type': 'application/json', 'user-agent': CONSOLE_USER_AGENT },
      payload: JSON.stringify(payload)
    })
  const given = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).seconds : undefined
  const total = parseDuration(given)
  const keys = typeof body === 'object' && body !== null ? Object.keys(body) : []
  if (total === undefined || !Number.isInteger(total) || total > MAX_ADVANCE_SECONDS || keys.some((key) => key !== 'seconds') || total < 2 * MIN_ADVANCE_STEP) {
    return advance(body)
  }
  const step = Math.max(MIN_ADVANCE_STEP, Math.ceil(total / ADVANCE_STEPS))
  let answer: LightMyRequestResponse | undefined
  for (let done = 0; done < total; ) {
    const seconds = Math.min(step, total - done)
    answer = await advance({ seconds })
    if (answer.statusCode !== 200) return answer
    done += seconds
    context.history.record()
  }
  return answer as LightMyRequestResponse
}

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
  },
  api(scope: FastifyInstance, context: ConsoleContext) {
    scope.post('/fleet/advance', async (request, reply) => {
      const answer = await advanceInSteps(request.body, context)
      return reply.code(answer.statusCode).type(String(answer.headers['content-type'])).send(answer.rawPayload)
    })
  }
}
