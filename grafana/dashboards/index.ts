/**
 * Every dashboard and the JSON file it is written to (the TypeScript file of the same name builds
 * it), in the order grafana/README.md lists them.
 */
import type { DashboardFile } from '../lib/render.js'
import { api } from './api.js'
import { fleetOverview } from './fleet-overview.js'
import { simulator } from './simulator.js'

export const DASHBOARDS: readonly DashboardFile[] = [
  { file: 'fleet-overview.json', dashboard: fleetOverview },
  { file: 'api.json', dashboard: api },
  { file: 'simulator.json', dashboard: simulator }
]
