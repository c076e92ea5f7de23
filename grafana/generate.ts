/**
 * Writes the dashboards of grafana/dashboards/*.ts to grafana/dashboards/*.json and their panel
 * list into grafana/README.md. `--check` writes nothing and fails when a committed file differs
 * from what would be written, or when a JSON file there is not generated.
 *
 *   npm run grafana:generate            # regenerate
 *   npm run grafana:generate -- --check # verify
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DASHBOARDS } from './dashboards/index.js'
import { dashboardJson, withPanelList } from './lib/render.js'

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

const check = process.argv.includes('--check')
const wanted = new Map<string, string>()
for (const { file, dashboard } of DASHBOARDS) wanted.set(here(`dashboards/${file}`), dashboardJson(dashboard))
const readmePath = here('README.md')
wanted.set(readmePath, withPanelList(read(readmePath) ?? '', DASHBOARDS))

const stale = [...wanted].filter(([path, content]) => read(path) !== content).map(([path]) => path)
const generated = new Set(DASHBOARDS.map(({ file }) => file))
const strays = readdirSync(here('dashboards')).filter((file) => file.endsWith('.json') && !generated.has(file))

if (check) {
  for (const path of stale) process.stderr.write(`out of date: ${path} (run npm run grafana:generate)\n`)
  for (const file of strays) process.stderr.write(`not generated: grafana/dashboards/${file}\n`)
  process.exitCode = stale.length + strays.length > 0 ? 1 : 0
} else {
  for (const path of stale) {
    writeFileSync(path, wanted.get(path) ?? '')
    process.stdout.write(`wrote ${path}\n`)
  }
  for (const file of strays) process.stderr.write(`not generated (delete it?): grafana/dashboards/${file}\n`)
}
