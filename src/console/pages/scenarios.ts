/**
 * Scenarios: the scenario running now (reset it, or go back to the default fleet); the library
 * of scenarios/ with descriptions, each to start or to open in the editor; and the editor: a
 * scenario uploaded from a file or written in place, checked (PUT /__admin/scenario?dryRun=true)
 * and loaded (PUT /__admin/scenario), its problems listed and marked at their lines.
 *
 * Every button calls the admin API through the console (/console/api/admin/…, proxy.ts), so the
 * page shows the API's own answers and errors. The page's script is web/console/scenarios.js.
 */
import { html } from '../markup.js'
import type { ConsolePage } from '../page.js'
import { ASSETS } from '../paths.js'

export const scenariosPage: ConsolePage = {
  id: 'scenarios',
  title: 'Scenarios',
  path: '/scenarios',
  scripts: [`${ASSETS}/scenarios.js`],
  styles: [`${ASSETS}/scenarios.css`],
  body(_params, { engine }) {
    const running = engine.scenarioSummary()
    return html`<h1>Scenarios</h1>
<section class="panel" aria-labelledby="running-title">
  <h2 id="running-title">Running now</h2>
  <p id="running">${running === undefined ? 'The default fleet (no scenario).' : `${running.name}: ${running.description}`}</p>
  <div class="controls">
    <button type="button" id="reset">Reset to the start</button>
    <button type="button" id="stop" class="secondary">Stop the scenario (default fleet)</button>
  </div>
  <p id="running-message" class="message" role="status" aria-live="polite"></p>
</section>
<section class="panel" aria-labelledby="library-title">
  <h2 id="library-title">Library</h2>
  <table id="library" class="library">
    <caption class="visually-hidden">Scenarios shipped with fleetsim</caption>
    <thead><tr><th scope="col">Scenario</th><th scope="col">Description</th><th scope="col" class="num">Agents</th><th scope="col">Timeline and faults</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody><tr><td colspan="5" class="note">Loading the library…</td></tr></tbody>
  </table>
  <p id="library-message" class="message" role="status" aria-live="polite"></p>
</section>
<section class="panel" aria-labelledby="editor-title">
  <h2 id="editor-title">Upload or edit a scenario</h2>
  <form id="editor" class="editor" novalidate>
    <div class="upload">
      <label for="scenario-file">Scenario file (YAML or JSON)</label>
      <input id="scenario-file" type="file" accept=".yaml,.yml,.json,application/yaml,text/yaml,application/json">
    </div>
    <div>
      <label for="scenario-source">Name in messages (the scenario's name when it has none)</label>
      <input id="scenario-source" name="source" value="console-edit" autocomplete="off" spellcheck="false">
    </div>
    <label for="scenario-text" id="scenario-text-label">Scenario text</label>
    <div class="code">
      <div id="gutter" class="gutter" aria-hidden="true"></div>
      <textarea id="scenario-text" name="text" rows="18" wrap="off" spellcheck="false" autocomplete="off" aria-describedby="editor-hint problems-summary"></textarea>
    </div>
    <p id="editor-hint" class="note">Write YAML as in scenarios/ (docs/scenarios.md). Check shows each problem at its line; Load starts the scenario.</p>
    <div class="controls">
      <button type="submit" id="check" name="action" value="check">Check</button>
      <button type="submit" id="load" name="action" value="load">Load and start</button>
    </div>
  </form>
  <div id="problems" class="problems" tabindex="-1" aria-labelledby="problems-summary">
    <p id="problems-summary" class="message" role="status" aria-live="polite"></p>
    <ol id="problem-list"></ol>
  </div>
</section>`
  }
}
