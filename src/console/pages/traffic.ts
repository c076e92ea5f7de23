/**
 * Traffic: what clients sent and got. The request journal, live (the `journal` topic of the
 * console stream, journal-topic.ts), filtered by operation and status, each entry opened to its
 * request and answer; the client report; and the API fault rules in force, to add and remove.
 *
 * The list loads what the journal holds with GET /__admin/requests and then follows the
 * stream; an opened entry is read in full with GET /__admin/requests/<id>. The fault rules are
 * those of GET /__admin/faults, added with POST (a rule written as a scenario's `faults` entry)
 * and removed with DELETE /__admin/faults/<id>. All go through the console (proxy.ts), so the
 * page shows the admin API's own answers and errors. The page's script is web/console/traffic.js.
 */
import { OPERATION_NAMES } from '../../protocol/operations.js'
import { journalTopic } from '../journal-topic.js'
import { html } from '../markup.js'
import type { ConsolePage } from '../page.js'
import { ASSETS, CONSOLE_PREFIX } from '../paths.js'

/** Rows the list keeps: the newest ones. */
export const LIST_ROWS = 200

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx']

export const trafficPage: ConsolePage = {
  id: 'traffic',
  title: 'Traffic',
  path: '/traffic',
  scripts: [`${ASSETS}/traffic.js`],
  styles: [`${ASSETS}/traffic.css`],
  api(_scope, { hub, journal }) {
    hub.addTopic(journalTopic(journal))
  },
  body() {
    return html`<h1>Traffic</h1>
<section class="panel" aria-labelledby="journal-title">
  <h2 id="journal-title">Requests</h2>
  <form id="journal-filter" class="inline filters" role="search" aria-label="Filter requests">
    <div><label for="f-operation">Operation</label><select id="f-operation" name="operation"><option value="">any</option>${OPERATION_NAMES.map((name) => html`<option value="${name}">${name}</option>`)}</select></div>
    <div><label for="f-status">Status</label><select id="f-status" name="status"><option value="">any</option>${STATUS_CLASSES.map((name) => html`<option value="${name}">${name}</option>`)}</select></div>
    <div class="check"><input id="follow" type="checkbox" checked><label for="follow">Follow live</label></div>
    <div><button type="button" id="clear-journal" class="secondary">Clear the journal</button></div>
  </form>
  <p id="journal-summary" class="note" role="status" aria-live="polite" aria-atomic="true"></p>
  <table id="journal" class="journal" data-rows="${LIST_ROWS}">
    <caption class="visually-hidden">Requests recorded by the journal, newest first</caption>
    <thead><tr><th scope="col"><span class="visually-hidden">Details</span></th><th scope="col" class="num">#</th><th scope="col">Time (wall)</th><th scope="col">Method</th><th scope="col">Operation</th><th scope="col" class="num">Status</th><th scope="col" class="num">ms</th><th scope="col">Fault</th></tr></thead>
  </table>
</section>
<section class="panel" aria-labelledby="faults-title">
  <h2 id="faults-title">Fault rules</h2>
  <div class="check"><input id="faults-enabled" type="checkbox"><label for="faults-enabled">Fault rules act on calls (switch all off or on)</label></div>
  <table id="faults" class="faults">
    <caption class="visually-hidden">API fault rules in force</caption>
    <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">From</th><th scope="col">Operations</th><th scope="col">Faults</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody></tbody>
  </table>
  <form id="fault-form" class="fault-form" novalidate>
    <label for="fault-rule">New rule, written as an entry of a scenario's faults (YAML or JSON)</label>
    <textarea id="fault-rule" rows="3" spellcheck="false" autocomplete="off" aria-describedby="fault-hint fault-message" placeholder="{ name: slow-agentinfo, operation: agentinfo, latency: { dist: uniform, min: 100, max: 300 } }"></textarea>
    <p id="fault-hint" class="note">Keys: name, operation (a name, a list, or "*"), during, latency, error, reset, stall, failFirst, body (docs/scenarios.md#faults).</p>
    <button type="submit">Add rule</button>
  </form>
  <p id="fault-message" class="message" role="status" aria-live="polite"></p>
</section>
<section class="panel" aria-labelledby="report-title">
  <h2 id="report-title">Client report</h2>
  <div id="report"><p class="note">Loading the report…</p></div>
  <div class="controls">
    <button type="button" id="refresh-report" class="secondary">Refresh the report</button>
    <a href="${CONSOLE_PREFIX}/api/admin/report?format=html">Open the full client report (HTML)</a>
  </div>
</section>`
  }
}
