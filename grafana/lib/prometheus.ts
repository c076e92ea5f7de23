/**
 * The Prometheus datasource every panel, annotation and variable queries, and the PromQL pieces
 * every query shares.
 */
import type { DataSourceRef } from '@grafana/schema'

/** uid of the Prometheus datasource grafana/provisioning/datasources/prometheus.yaml creates. */
export const DATASOURCE_UID = 'fleetsim-prometheus'

/**
 * The datasource of every query: the dashboard's `$datasource` variable, whose provisioned
 * default is DATASOURCE_UID, so an imported dashboard can be pointed at any Prometheus.
 */
export const PROMETHEUS: DataSourceRef = { type: 'prometheus', uid: '${datasource}' }

/** The instance filter every query carries (the `$instance` variable: all by default). */
export const I = 'instance=~"$instance"'

/**
 * The window of every rate(): Grafana derives `$__rate_interval` from the scrape interval set on
 * the datasource, so a rate always spans several scrapes.
 */
export const RATE = '$__rate_interval'
