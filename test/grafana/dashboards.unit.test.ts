import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DASHBOARDS } from '../../grafana/dashboards/index.js'
import { dashboardJson, withPanelList } from '../../grafana/lib/render.js'

interface Dashboard {
  uid: string
  panels: Array<{ id: number; title: string; gridPos: { x: number; y: number; w: number; h: number }; targets: Array<{ expr: string }> }>
  annotations: { list: Array<{ expr?: string; builtIn?: number }> }
}

const committed = (file: string) => readFileSync(`grafana/dashboards/${file}`, 'utf8')
const committedDashboards = () => DASHBOARDS.map(({ file }) => ({ file, dashboard: JSON.parse(committed(file)) as Dashboard }))

describe('the Grafana dashboards', () => {
  it('are committed exactly as the generator writes them (run npm run grafana:generate)', () => {
    for (const { file, dashboard } of DASHBOARDS) expect(committed(file), file).toBe(dashboardJson(dashboard))
    const json = readdirSync('grafana/dashboards').filter((file) => file.endsWith('.json'))
    expect(json.sort()).toEqual(DASHBOARDS.map(({ file }) => file).sort())
  })

  it('have the panel list of grafana/README.md in step with their panels', () => {
    const readme = readFileSync('grafana/README.md', 'utf8')
    expect(readme).toBe(withPanelList(readme, DASHBOARDS))
  })

  it('keep their stable uids', () => {
    expect(DASHBOARDS.map(({ dashboard }) => dashboard.uid)).toEqual(['fleetsim-fleet', 'fleetsim-api', 'fleetsim-simulator'])
  })

  it('filter every query on the instance variable and give every panel its own id', () => {
    for (const { file, dashboard } of committedDashboards()) {
      const ids = dashboard.panels.map((panel) => panel.id)
      expect(new Set(ids).size, file).toBe(ids.length)
      const exprs = [
        ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)),
        ...dashboard.annotations.list.filter((a) => a.builtIn !== 1).map((a) => a.expr ?? '')
      ]
      for (const expr of exprs) expect(expr, `${file}: ${expr}`).toContain('instance=~"$instance"')
    }
  })

  it('place every panel inside the 24 columns of the grid, overlapping no other panel', () => {
    for (const { file, dashboard } of committedDashboards()) {
      const cells = new Map<string, string>()
      for (const { title, gridPos } of dashboard.panels) {
        expect(gridPos.x + gridPos.w, `${file}: ${title}`).toBeLessThanOrEqual(24)
        for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++) {
          for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
            expect(cells.get(`${x},${y}`), `${file}: ${title} overlaps`).toBeUndefined()
            cells.set(`${x},${y}`, title)
          }
        }
      }
    }
  })
})
