/**
 * V8's settings for a process that serves the facade (`fleetsim serve`, and the bench's fleetsim
 * targets, which answer as it does): allocation-site pretenuring off.
 *
 * Why: V8 watches which objects survive a young-generation GC by where they were allocated, and
 * from a site whose objects mostly survived it allocates them in the old generation at once
 * (pretenuring). A server's per-request objects (the request, the response, the answer) die
 * within a turn or two, but a GC that comes while many are in flight (a step round holding the
 * event loop, a burst of requests) can find most of them alive, and the site is then pretenured
 * for as long as V8 sees no reason to go back. In such a process every request's objects went to
 * the old generation, each GC of the young one had to scan the old objects pointing into it, and
 * the GC took 15 to 25 times its usual share of each answer for the process's lifetime: 2 of 18
 * fleetsim processes under the built workload, none with pretenuring off (`npm run bench --
 * --scope gc`, bench/README.md, "No pretenuring").
 */
import { setFlagsFromString } from 'node:v8'

export const SERVING_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring']

/** Applies SERVING_V8_FLAGS to this process's V8 (at start-up, before the server takes requests). */
export function tuneHeapForServing(): void {
  for (const flag of SERVING_V8_FLAGS) setFlagsFromString(flag)
}
