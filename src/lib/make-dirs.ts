/**
 * `mkdir -p` one directory at a time. Why not `mkdir(dir, { recursive: true })`: on Node 20 it
 * never returns for a path under a file system that refuses new entries with ENOENT, as /proc
 * does (`--out /proc/x` hung the command), as it retries the parent it finds there forever.
 * Here each missing directory is made with a plain mkdir, from the nearest existing one down,
 * and the first refusal is the error.
 */
import { mkdir, stat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

/** Makes `dir` and any missing parents (each with `mode`, which the umask narrows); a directory that exists is left as it is. */
export async function makeDirs(dir: string, mode?: number): Promise<void> {
  const missing: string[] = []
  for (let at = resolve(dir); ; at = dirname(at)) {
    const info = await stat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (info !== undefined) {
      // A file where a directory goes: what mkdir itself would say.
      if (!info.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', path: at })
      break
    }
    missing.push(at)
    // The root exists; this is a guard against a loop should stat say otherwise.
    if (dirname(at) === at) break
  }
  for (const path of missing.reverse()) {
    await mkdir(path, mode === undefined ? undefined : { mode }).catch((error: NodeJS.ErrnoException) => {
      // Made meanwhile by someone else: what was wanted.
      if (error.code !== 'EEXIST') throw error
    })
  }
}
