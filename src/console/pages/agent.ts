/**
 * One agent: its record and modules (as agentinfo gives them), labels, templates,
 * configuration and certificate (as certificateinfo lists it), and buttons for the REST
 * operations (stopagent, startagent, updateandreloadagent, assigntemplatetoagent) and the admin
 * overrides (offline for a while, fail the next reconnect). The buttons call the operations
 * themselves through the console (proxy.ts) and show their answers as given; the details are
 * then read again. `GET /console/api/agents/<name>` gives the same details as JSON.
 */
import type { FastifyInstance } from 'fastify'
import { agentRecord } from '../../http/records.js'
import { apiError, ApiError } from '../../protocol/errors.js'
import { masterTemplates } from '../agent-filter.js'
import type { AgentConfig } from '../../fleet/fleet-api.js'
import { displayFingerprint } from '../../tls/ca-info.js'
import { ErrorMarkup, html, raw, type Raw } from '../markup.js'
import type { ConsoleContext, ConsolePage } from '../page.js'
import { ASSETS, CONSOLE_PREFIX } from '../paths.js'

/** What the agent page shows, and what its JSON gives. */
export function agentDetails(name: string, { engine, manager }: Pick<ConsoleContext, 'engine' | 'manager'>) {
  const index = engine.findByName(name)
  if (index === undefined) throw apiError('E_UNKNOWN_AGENT', { by: 'name', values: [name] })
  const view = engine.view(index, true)
  const config = engine.config(index)
  const templates = new Map([...manager.templates.all()].map((t) => [t.id, t.name]))
  const assignment = manager.templates.assignmentOf(index)
  return {
    record: agentRecord(view),
    labels: manager.labels.labelsOf(index),
    scenarioLabels: engine.scenarioLabelsOf(index),
    templates: { master: templates.get(engine.templateOf(index)) ?? null, subs: (assignment?.subs ?? []).map((id) => templates.get(id) ?? `#${id}`) },
    config: globalConfig(config),
    certificate: manager.certificates.recordOf(config.certFingerprint) ?? null
  }
}

/**
 * The agent's configuration as addagent and modifyagent take it (their `global-config`), its
 * fingerprints as certificateinfo shows them: what a client would send to configure it so.
 */
function globalConfig(config: AgentConfig): Record<string, string | number | boolean> {
  return {
    address: config.address,
    port: config.port,
    'ca-fingerprint': displayFingerprint(config.caFingerprint),
    'cert-fingerprint': displayFingerprint(config.certFingerprint),
    'is-log-to-file': config.isLogToFile,
    'log-level': config.logLevel,
    mode: config.mode,
    verbatim: config.verbatim
  }
}

type Details = ReturnType<typeof agentDetails>

function fieldTable(caption: string, fields: Record<string, unknown>): Raw {
  return html`<table class="fields"><caption>${caption}</caption><tbody>${Object.entries(fields).map(
    ([key, value]) => html`<tr><th scope="row">${key}</th><td>${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}</td></tr>`
  )}</tbody></table>`
}

function detailsMarkup(details: Details): Raw {
  const { modules = [], ...record } = details.record
  const moduleRows = modules.map(
    (m) =>
      html`<tr><td>${m.module_name}</td><td>${m.module}</td><td>${m.type}</td><td>${m['module-status']}</td><td class="num">${m['evt-recvd'].toLocaleString('en-US')}</td><td class="num">${m['evt-fwd'].toLocaleString('en-US')}</td><td class="num">${m['evt-drop'].toLocaleString('en-US')}</td><td class="num">${m.queuesize.toLocaleString('en-US')}</td></tr>`
  )
  const labels = [...details.labels.map((l) => ({ ...l, kind: 'custom label' })), ...details.scenarioLabels.map((l) => ({ ...l, kind: 'scenario label' }))]
  return html`<div id="agent-details" data-state="${record.status}">
<div class="columns">
<section class="panel" aria-labelledby="record-title"><h2 id="record-title">Record</h2>${fieldTable('The agent as agentinfo shows it', record)}</section>
<div>
<section class="panel" aria-labelledby="labels-title"><h2 id="labels-title">Labels and templates</h2>
  ${labels.length === 0 ? html`<p class="note">No labels.</p>` : html`<table><caption class="visually-hidden">Labels</caption><thead><tr><th scope="col">Label</th><th scope="col">Value</th><th scope="col">Kind</th></tr></thead><tbody>${labels.map((l) => html`<tr><td>${l.name}</td><td>${l.value}</td><td>${l.kind}</td></tr>`)}</tbody></table>`}
  <p>Master template: <strong>${details.templates.master ?? 'none'}</strong>${details.templates.subs.length > 0 ? html`; sub templates: ${details.templates.subs.join(', ')}` : raw('')}</p>
</section>
<section class="panel" aria-labelledby="config-title"><h2 id="config-title">Configuration</h2>${fieldTable('The agent configuration, as addagent and modifyagent take it', details.config)}</section>
<section class="panel" aria-labelledby="cert-title"><h2 id="cert-title">Certificate</h2>${details.certificate === null ? html`<p class="note">The manager knows no certificate with this agent's fingerprint.</p>` : fieldTable('The certificate as certificateinfo lists it', details.certificate as unknown as Record<string, unknown>)}</section>
</div>
</div>
<section class="panel" aria-labelledby="modules-title"><h2 id="modules-title">Modules</h2>
<table class="modules"><caption class="visually-hidden">Modules of the agent</caption><thead><tr><th scope="col">Name</th><th scope="col">Module</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col" class="num">Received</th><th scope="col" class="num">Forwarded</th><th scope="col" class="num">Dropped</th><th scope="col" class="num">Queue</th></tr></thead><tbody>${moduleRows}</tbody></table>
</section>
</div>`
}

function actions(details: Details, context: ConsoleContext): Raw {
  const { name, uuid } = details.record
  const q = `agentUuids=${encodeURIComponent(uuid)}`
  const admin = `/admin/agents/${encodeURIComponent(name)}`
  const masters = masterTemplates(context.manager)
  return html`<section class="panel actions" aria-labelledby="actions-title">
  <h2 id="actions-title">Operations</h2>
  <p class="note">Each button calls the operation itself and shows its answer.</p>
  <div class="controls">
    <button type="button" data-method="POST" data-path="/rest/stopagent?${q}">Stop (stopagent)</button>
    <button type="button" data-method="POST" data-path="/rest/startagent?${q}">Start (startagent)</button>
    <button type="button" data-method="POST" data-path="/rest/updateandreloadagent?${q}">Update and reload (updateandreloadagent)</button>
    <button type="button" data-method="POST" data-path="${admin}/fail-next-reconnect">Fail the next reconnect (admin)</button>
  </div>
  ${
    masters.length === 0
      ? html`<p class="note">No master template to assign yet: create one with createmastertemplate (or run a scenario that names templates).</p>`
      : html`<form class="inline" data-form="assign" data-path="/rest/assigntemplatetoagent?${q}">
    <label for="assign-template">Master template to assign (assigntemplatetoagent)</label>
    <select id="assign-template" name="templateName" required>${masters.map((t) => html`<option value="${t.name}">${t.name}</option>`)}</select>
    <span class="check"><input type="checkbox" id="assign-update" name="updateAgents" value="true"><label for="assign-update">and update the agent</label></span>
    <button type="submit">Assign</button>
  </form>`
  }
  <form class="inline" data-form="offline" data-path="${admin}/override">
    <label for="offline-for">Take offline for (seconds or a duration like 5m; admin override)</label>
    <input id="offline-for" name="for" value="300" required autocomplete="off" spellcheck="false">
    <button type="submit">Take offline</button>
  </form>
  <div id="operation-message" class="message" role="status" aria-live="polite"></div>
</section>`
}

export const agentPage: ConsolePage = {
  id: 'agent',
  title: 'Agent',
  path: '/agents/:name',
  navId: 'agents',
  scripts: [`${ASSETS}/agent.js`],
  titleOf: (params) => params.name ?? 'Agent',
  body(params, context) {
    const name = params.name ?? ''
    let details: Details
    try {
      details = agentDetails(name, context)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      const markup = html`<h1>${name}</h1><p class="message error" role="alert">${error.message}</p><p><a href="${CONSOLE_PREFIX}/agents">All agents</a></p>`
      return new ErrorMarkup(markup.text, error.statusCode)
    }
    return html`<p class="crumbs"><a href="${CONSOLE_PREFIX}/agents">Agents</a> /</p>
<h1 data-agent="${name}" data-uuid="${details.record.uuid}">${name} <span class="badge state-${details.record.status.toLowerCase()}" id="agent-state">${details.record.status}</span></h1>
${actions(details, context)}
${detailsMarkup(details)}`
  },
  api(scope: FastifyInstance, context: ConsoleContext) {
    scope.get<{ Params: { name: string } }>('/agents/:name', async (request) => agentDetails(request.params.name, context))
  }
}
