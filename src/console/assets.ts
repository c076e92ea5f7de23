/**
 * The console's static files and where they are served: its own pages' files (web/console/),
 * the shared fleet chart (web/chart/) and uPlot's built files, all from the package, no CDN.
 */
import { basename, dirname } from 'node:path'
import { UPLOT_FILES, webPath } from '../lib/web-assets.js'
import { CONSOLE_PREFIX } from './paths.js'

export const STATIC_DIRS = [
  { root: webPath('console'), prefix: `${CONSOLE_PREFIX}/assets/` },
  { root: webPath('chart'), prefix: `${CONSOLE_PREFIX}/chart/` }
] as const

/** uPlot's two files, served from its package folder and nothing else of it. */
export const UPLOT_DIR = { root: dirname(UPLOT_FILES.script), prefix: `${CONSOLE_PREFIX}/vendor/uplot/`, files: [basename(UPLOT_FILES.script), basename(UPLOT_FILES.style)] } as const

/** What a page showing the fleet chart loads: uPlot, then the chart (it needs the global uPlot). */
export const CHART_SCRIPTS = [`${UPLOT_DIR.prefix}${UPLOT_DIR.files[0]}`, `${CONSOLE_PREFIX}/chart/fleet-chart.js`] as const
export const CHART_STYLES = [`${UPLOT_DIR.prefix}${UPLOT_DIR.files[1]}`, `${CONSOLE_PREFIX}/chart/fleet-chart.css`] as const
