/**
 * Where the browser assets are: `web/` at the package root (the console's pages and the fleet
 * chart, shared by the console and `fleetsim run`'s index.html) and uPlot's built files.
 *
 * This module sits two folders below the package root both as source (`src/lib/`) and built
 * (`dist/lib/`), so one relative URL finds `web/` in both; uPlot is resolved like any package.
 */
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const require = createRequire(import.meta.url)

/** The absolute path of `web/`, or of a file under it. */
export function webPath(...parts: string[]): string {
  return join(fileURLToPath(new URL('../../web/', import.meta.url)), ...parts)
}

/** uPlot's built files: the browser script (defines the global `uPlot`) and its stylesheet. */
export const UPLOT_FILES = {
  script: require.resolve('uplot/dist/uPlot.iife.min.js'),
  style: require.resolve('uplot/dist/uPlot.min.css')
} as const
