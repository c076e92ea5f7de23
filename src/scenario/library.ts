/**
 * The scenario library shipped in `scenarios/` (where it is: library-dir.ts): a listing with descriptions.
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { LIBRARY_DIR } from './library-dir.js'
import { loadScenarioFile } from './load.js'

export interface LibraryEntry {
  readonly file: string
  readonly name: string
  /** the scenario's description, or the first problem when it does not validate */
  readonly description: string
  readonly valid: boolean
}

export async function libraryFiles(dir = LIBRARY_DIR): Promise<string[]> {
  const names = await readdir(dir)
  return names
    .filter((n) => n.endsWith('.yaml') || n.endsWith('.yml'))
    .sort()
    .map((n) => join(dir, n))
}

export async function listLibrary(dir = LIBRARY_DIR): Promise<LibraryEntry[]> {
  const files = await libraryFiles(dir)
  return Promise.all(
    files.map(async (file): Promise<LibraryEntry> => {
      const result = await loadScenarioFile(file)
      if (result.ok) return { file, name: result.scenario.name, description: result.scenario.description, valid: true }
      return { file, name: file, description: `invalid: ${result.issues[0]?.message ?? 'unknown problem'}`, valid: false }
    })
  )
}
