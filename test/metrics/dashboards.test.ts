import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DASHBOARDS, dashboardFiles, withPanelList } from '../../src/metrics/dashboards.js'

interface Dashboard {
  uid: string
  panels: Array<{ id: number; title: string; targets: Array<{ expr: string }> }>
  annotations: { list: Array<{ expr?: string; builtIn?: number }> }
}

const committed = (file: string) => readFileSync(`grafana/dashboards/${file}`, 'utf8')

describe('the Grafana dashboards', () => {
  it('are committed exactly as the generator writes them (run npm run grafana:generate)', () => {
    for (const [file, content] of dashboardFiles()) expect(committed(file), file).toBe(content)
    expect(readdirSync('grafana/dashboards').sort()).toEqual([...dashboardFiles().keys()].sort())
  })

  it('have the panel list of grafana/README.md in step with their panels', () => {
    const readme = readFileSync('grafana/README.md', 'utf8')
    expect(readme).toBe(withPanelList(readme))
  })

  it('keep their stable uids', () => {
    expect(DASHBOARDS.map((spec) => spec.uid)).toEqual(['fleetsim-fleet', 'fleetsim-api', 'fleetsim-simulator'])
  })

  it('filter every query on the instance variable and give every panel its own id', () => {
    for (const file of dashboardFiles().keys()) {
      const dashboard = JSON.parse(committed(file)) as Dashboard
      const ids = dashboard.panels.map((panel) => panel.id)
      expect(new Set(ids).size, file).toBe(ids.length)
      const exprs = [
        ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)),
        ...dashboard.annotations.list.filter((a) => a.builtIn !== 1).map((a) => a.expr ?? '')
      ]
      for (const expr of exprs) expect(expr, `${file}: ${expr}`).toContain('instance=~"$instance"')
    }
  })
})
