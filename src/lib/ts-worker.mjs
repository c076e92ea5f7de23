// A worker thread's entry when fleetsim runs from its sources (src/lib/worker-entry.ts): the
// module to run, TypeScript, is the thread's last argument. On Node 20 tsx registers its ESM
// loader on the main thread only, and its CommonJS one (which `--import tsx` does load in a
// worker) made every call between two modules a property read: the list thread wrote items 1.5
// times as slowly. So the thread registers the ESM loader itself, and imports the module as ESM.
import { register } from 'tsx/esm/api'
import { pathToFileURL } from 'node:url'
import process from 'node:process'

register()
await import(pathToFileURL(process.argv[process.argv.length - 1]).href)
