/** Annotation builders: events drawn over every time series panel of a dashboard. */
import type { BuiltInAnnotation, PrometheusAnnotation } from './model.js'
import { PROMETHEUS } from './prometheus.js'

/** Grafana's own annotations and alerts, which every dashboard has (hidden from the toggles). */
export const BUILT_IN_ANNOTATION: BuiltInAnnotation = {
  builtIn: 1,
  datasource: { type: 'grafana', uid: '-- Grafana --' },
  enable: true,
  hide: true,
  iconColor: 'rgba(0, 211, 255, 1)',
  name: 'Annotations & Alerts',
  type: 'dashboard'
}

export interface AnnotationSpec {
  name: string
  /** the event's text; also its description in grafana/README.md */
  description: string
  /** PromQL: an event where the series has a value (a region while it keeps one) */
  expr: string
  /** the event's title, with `{{label}}` placeholders */
  title: string
  /** labels of the series that become the event's tags */
  tags: string[]
  color: string
}

/** Events from a Prometheus query, switched on, with a toggle on the dashboard. */
export function prometheusAnnotation(spec: AnnotationSpec): PrometheusAnnotation {
  return {
    name: spec.name,
    datasource: PROMETHEUS,
    enable: true,
    hide: false,
    iconColor: spec.color,
    expr: spec.expr,
    step: '10s',
    titleFormat: spec.title,
    textFormat: spec.description,
    tagKeys: spec.tags.join(','),
    useValueForTime: false
  }
}
