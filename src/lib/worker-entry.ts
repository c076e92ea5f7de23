/**
 * How to start a worker thread whose entry is a module of this package: its file next to the
 * module asking (`.ts` when fleetsim runs from its sources, through tsx: `npm start`, vitest),
 * else the built `.js`.
 */
import { fileURLToPath } from 'node:url'

export interface WorkerEntry {
  filename: string
  execArgv: string[]
  env?: Record<string, string | undefined>
}

/**
 * How to start a plain Worker (not Piscina's, which loads its entry itself) on the entry `name`
 * next to the module at `moduleUrl`: from the sources, through ts-worker.mjs, which registers
 * tsx in the thread and imports it.
 */
export function threadEntry(moduleUrl: string, name: string): WorkerEntry & { argv: string[] } {
  const entry = workerEntry(moduleUrl, name)
  if (!entry.filename.endsWith('.ts')) return { ...entry, argv: [] }
  return { ...entry, filename: fileURLToPath(new URL('./ts-worker.mjs', import.meta.url)), execArgv: [], argv: [entry.filename] }
}

/** The entry `name` (without extension) next to the module at `moduleUrl` (its import.meta.url). */
export function workerEntry(moduleUrl: string, name: string): WorkerEntry {
  const fromSource = fileURLToPath(moduleUrl).endsWith('.ts')
  return {
    filename: fileURLToPath(new URL(`./${name}${fromSource ? '.ts' : '.js'}`, moduleUrl)),
    // tsx resolved from this module, not from the working directory: the sources run from anywhere.
    execArgv: fromSource ? ['--import', import.meta.resolve('tsx')] : [],
    // tsx's cache left files open in the process after each worker ended, and every run (a reset,
    // a scenario loaded) starts new workers: a server run from source (`npm start`) held more open
    // files with every reset. Without the cache none is left open, and the workers start as fast.
    ...(fromSource ? { env: { ...process.env, TSX_DISABLE_CACHE: '1' } } : {})
  }
}
