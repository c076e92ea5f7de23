/**
 * The heap a `*.heap.test.ts` file measures: used bytes after full GCs. Such a file runs in a
 * process of its own (vitest.config.ts), so what it finds is what it made.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Heap used after two full GCs. */
export function heapAfterGc(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
