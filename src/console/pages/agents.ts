/**
 * Agents: the fleet as a table paged on the server, filtered by name, state, OS, master
 * template and label (agent-filter.ts; the fleet's columns are scanned, no agent objects are
 * built but the page's). The page is a plain GET form and links, so paging and filtering work
 * without a script (it has none); `GET /console/api/agents` answers the same query as JSON.
 */
import type { FastifyInstance } from 'fastify'
import type { FleetEngine } from '../../fleet/fleet.js'
import type { Manager } from '../../manager/manager.js'
import { ApiError } from '../../protocol/errors.js'
import { AGENT_STATES } from '../../protocol/states.js'
import { FILTER_KEYS, NO_TEMPLATE, agentQuery, filterText, knownLabels, masterTemplates, type AgentFilterText } from '../agent-filter.js'
import { ErrorMarkup, html, raw, type Raw } from '../markup.js'
import type { ConsoleContext, ConsolePage } from '../page.js'
import { CONSOLE_PREFIX } from '../paths.js'

export interface AgentRow {
  name: string
  uuid: string
  state: string
  os: string
  version: string
  /** master template name, null when none */
  template: string | null
  address: string
}

export interface AgentsAnswer {
  total: number
  offset: number
  limit: number
  agents: AgentRow[]
}

export function agentRows(engine: FleetEngine, manager: Manager, indices: readonly number[]): AgentRow[] {
  const templates = new Map(masterTemplates(manager).map((t) => [t.id, t.name]))
  return indices.map((index) => {
    const view = engine.view(index, false)
    return { name: view.name, uuid: view.uuid, state: view.status, os: view.os, version: view.version, template: templates.get(engine.templateOf(index)) ?? null, address: view.address }
  })
}

/** The matching agents of a query string: the page's and the API's one answer. */
export function findAgents(query: Record<string, unknown>, { engine, manager }: Pick<ConsoleContext, 'engine' | 'manager'>): AgentsAnswer {
  const q = agentQuery(query, engine, manager)
  const { total, indices } = engine.queryAgents(q)
  return { total, offset: q.offset, limit: q.limit, agents: agentRows(engine, manager, indices) }
}

/** The page's own URL with the filter and another offset. */
function pageLink(filter: AgentFilterText, offset: number, limit: number): string {
  const params = new URLSearchParams()
  for (const key of FILTER_KEYS) if (filter[key] !== '') params.set(key, filter[key])
  if (offset > 0) params.set('offset', String(offset))
  if (limit !== 50) params.set('limit', String(limit))
  const query = params.toString()
  return `${CONSOLE_PREFIX}/agents${query === '' ? '' : `?${query}`}`
}

function options(values: readonly string[], selected: string, none: string): Raw {
  return html`<option value="">${none}</option>${values.map((value) => html`<option value="${value}"${raw(value === selected ? ' selected' : '')}>${value}</option>`)}`
}

function filterForm(filter: AgentFilterText, context: ConsoleContext): Raw {
  const { engine, manager } = context
  const templates = [NO_TEMPLATE, ...masterTemplates(manager).map((t) => t.name)]
  return html`<form id="filter" class="filters panel" method="get" action="${CONSOLE_PREFIX}/agents" role="search" aria-label="Filter agents">
  <div><label for="f-name">Name contains</label><input id="f-name" name="name" value="${filter.name}" autocomplete="off" spellcheck="false"></div>
  <div><label for="f-state">State</label><select id="f-state" name="state">${options(AGENT_STATES, filter.state, 'any')}</select></div>
  <div><label for="f-os">OS</label><select id="f-os" name="os">${options(engine.osNames(), filter.os, 'any')}</select></div>
  <div><label for="f-template">Master template</label><select id="f-template" name="template">${options(templates, filter.template, 'any')}</select></div>
  <div><label for="f-label">Label (name or name=value)</label><input id="f-label" name="label" value="${filter.label}" list="known-labels" autocomplete="off" spellcheck="false">
    <datalist id="known-labels">${knownLabels(engine, manager).map((label) => html`<option value="${label}"></option>`)}</datalist></div>
  <div class="buttons"><button type="submit">Filter</button> <a href="${CONSOLE_PREFIX}/agents">Clear</a></div>
</form>`
}

function table(answer: AgentsAnswer, filter: AgentFilterText): Raw {
  const { total, offset, limit, agents } = answer
  const first = total === 0 ? 0 : offset + 1
  const last = offset + agents.length
  const rows = agents.map(
    (a) =>
      html`<tr><td><a href="${CONSOLE_PREFIX}/agents/${encodeURIComponent(a.name)}">${a.name}</a></td><td><span class="swatch state-${a.state.toLowerCase()}" aria-hidden="true"></span>${a.state}</td><td>${a.os}</td><td>${a.version}</td><td>${a.template ?? '–'}</td><td>${a.address}</td></tr>`
  )
  const previous = offset > 0 ? html`<a rel="prev" href="${pageLink(filter, Math.max(0, offset - limit), limit)}">← Previous</a>` : raw('')
  const next = last < total ? html`<a rel="next" href="${pageLink(filter, offset + limit, limit)}">Next →</a>` : raw('')
  return html`<section class="panel" aria-labelledby="agents-summary">
  <p id="agents-summary" class="summary" aria-live="polite">${total === 0 ? 'No agents match.' : `Agents ${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`}</p>
  <table id="agents" class="agents">
    <caption class="visually-hidden">Agents matching the filter</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">OS</th><th scope="col">Version</th><th scope="col">Master template</th><th scope="col">Address</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>
  <nav class="pager" aria-label="Pages of agents">${previous} ${next}</nav>
</section>`
}

export const agentsPage: ConsolePage = {
  id: 'agents',
  title: 'Agents',
  path: '/agents',
  // No script: a plain form and links (choosing a state does not reload the page at once,
  // so a keyboard moving through the options is not sent away at the first one).
  scripts: [],
  body(_params, context, query) {
    const filter = filterText(query)
    let content: Raw
    let failed: ApiError | undefined
    try {
      content = table(findAgents(query, context), filter)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      failed = error
      content = html`<p class="message error" role="alert">${error.message}</p>`
    }
    const page = html`<h1>Agents</h1>
${filterForm(filter, context)}
${content}`
    return failed === undefined ? page : new ErrorMarkup(page.text, failed.statusCode)
  },
  api(scope: FastifyInstance, context: ConsoleContext) {
    scope.get<{ Querystring: Record<string, unknown> }>('/agents', async (request) => findAgents(request.query, context))
  }
}
