/**
 * Files replaced together: each written beside its place under a temporary name, then all
 * renamed into place once every one is written. Why: written in place, a full disk midway left a
 * report of two runs (a new index.html, a states.csv cut mid-line, the old summary), and a
 * symbolic link planted where a file goes had the file it names written over; a rename replaces
 * the link itself.
 */
import { randomUUID } from 'node:crypto'
import { rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Writes each `[path, content]`; on a failure removes what it wrote and throws, naming the file. */
export async function replaceFiles(files: ReadonlyArray<readonly [string, string]>): Promise<void> {
  // Named anew each time: a run killed midway under the same pid (a container's 1) left one behind.
  const run = randomUUID()
  const temporaries = files.map(([path]) => join(dirname(path), `.${basename(path)}.${run}.tmp`))
  try {
    for (const [k, [path, content]] of files.entries()) {
      await writeFile(temporaries[k], content, { flag: 'wx' }).catch((error: unknown) => {
        throw new Error(`cannot write ${path}: ${(error as Error).message}`, { cause: error })
      })
    }
  } catch (error) {
    await Promise.all(temporaries.map((temporary) => rm(temporary, { force: true })))
    throw error
  }
  try {
    for (const [k, [path]] of files.entries()) await rename(temporaries[k], path)
  } finally {
    // A rename that failed leaves the others' temporaries, not renamed: removed, as a failed write's are.
    await Promise.all(temporaries.map((temporary) => rm(temporary, { force: true })))
  }
}
