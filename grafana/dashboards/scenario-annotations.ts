/** The scenario annotations the Fleet overview and API dashboards share. */
import { SCENARIO_METRICS } from '../../src/metrics/scenario-metrics.js'
import { prometheusAnnotation } from '../lib/annotations.js'
import { I } from '../lib/prometheus.js'

/** A region while a scenario runs: fleetsim_scenario_info has a series with a scenario name. */
export const scenarioAnnotation = prometheusAnnotation({
  name: 'Scenario',
  description: 'A region while a scenario runs, titled with its name (from fleetsim_scenario_info).',
  expr: `group by (scenario) (${SCENARIO_METRICS.info}{${I}, scenario!=""})`,
  title: '{{scenario}}',
  tags: ['scenario'],
  color: 'purple'
})

/** A mark in each interval in which a timeline event fired. */
export const timelineAnnotation = prometheusAnnotation({
  name: 'Timeline events',
  description: 'A mark where a scenario timeline event fired.',
  expr: `sum by (event) (increase(${SCENARIO_METRICS.timelineEvents}{${I}}[$__interval])) > 0`,
  title: '{{event}}',
  tags: ['event'],
  color: 'orange'
})
