/**
 * The console's pages, in navigation order: this list is the navigation. A new page is a
 * module here (markup, scripts, JSON API) and a script in web/console/.
 */
import type { ConsolePage } from '../page.js'
import { agentPage } from './agent.js'
import { agentsPage } from './agents.js'
import { fleetPage } from './fleet.js'
import { scenariosPage } from './scenarios.js'
import { trafficPage } from './traffic.js'

/** An agent's page belongs to Agents (its navId) and has no entry of its own. */
export const PAGES: readonly ConsolePage[] = [fleetPage, agentsPage, agentPage, scenariosPage, trafficPage]
