/**
 * Where the scenario library shipped in `scenarios/` is, and the hint a mistyped or missing
 * scenario file gets: the library's file of that name, the nearest one, or how to list them.
 * Apart from library.ts, which reads the files (load.ts), so that load.ts can give the hint too.
 */
import { readdirSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suggest } from '../lib/suggest.js'

/** `scenarios/` at the package root (the same depth from src/scenario and dist/scenario). */
export const LIBRARY_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url))

const SCENARIO_FILE = /\.ya?ml$/

/** The library's scenario files by name (`flapping-network.yaml`); none if it cannot be read. */
export function libraryFileNames(dir = LIBRARY_DIR): string[] {
  try {
    return readdirSync(dir).filter((name) => SCENARIO_FILE.test(name))
  } catch {
    return []
  }
}

/**
 * What to tell someone whose scenario file `given` is not there, to follow the message: the
 * library's file of the same name (`flapping-network`, as `fleetsim scenario list` names them),
 * the library file nearest a misspelt one, or where the list is. Paths from `cwd`.
 */
export function libraryHint(given: string, files: readonly string[] = libraryFileNames(), cwd = process.cwd()): string {
  const stem = (name: string) => basename(name).replace(SCENARIO_FILE, '')
  const byStem = new Map(files.map((file) => [stem(file), file]))
  const path = (file: string) => relative(cwd, join(LIBRARY_DIR, file))
  const same = byStem.get(stem(given))
  if (same !== undefined && path(same) !== given) return `; the library has ${path(same)}`
  const nearest = suggest(stem(given), [...byStem.keys()])
  if (nearest !== undefined) return `; did you mean ${path(byStem.get(nearest) as string)}?`
  return '; `fleetsim scenario list` lists the library'
}
