/**
 * State file metrics: saves to --state-file and saves that failed. A failed save leaves the
 * previous file in place, so a run would resume from an older state than expected; alert on
 * `increase(fleetsim_state_save_failures_total[1h]) > 0`. Both stay 0 without --state-file.
 */
import type { Registry } from 'prom-client'
import { totalCounter } from './totals.js'

export const STATE_METRICS = {
  saves: 'fleetsim_state_saves_total',
  saveFailures: 'fleetsim_state_save_failures_total'
} as const

/** The saver's running totals (src/state/state-saver.ts). */
export interface StateSaveTotals {
  readonly saves: number
  readonly failures: number
}

const NO_SAVES: StateSaveTotals = Object.freeze({ saves: 0, failures: 0 })

export function registerStateMetrics(registry: Registry, totals: StateSaveTotals = NO_SAVES): void {
  totalCounter({
    name: STATE_METRICS.saves,
    help: 'Saves of the simulation to --state-file (periodic, on POST /__admin/snapshot and at exit).',
    registry,
    read: () => [[{}, totals.saves]]
  })
  totalCounter({
    name: STATE_METRICS.saveFailures,
    help: 'Saves to --state-file that failed; the file keeps its previous content. The cause is logged at error level.',
    registry,
    read: () => [[{}, totals.failures]]
  })
}
