import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Four tiers, told apart by the file name; `npm test` runs all of them:
 * - unit (`*.unit.test.ts`, `npm run test:unit`): no server, no worker thread, no child process;
 * - integration (every other `*.test.ts`): real fleets, apps, servers and commands;
 * - heap (`*.heap.test.ts`, run with integration): they measure their own process's heap after a
 *   full GC, so each runs in a fresh process;
 * - slow (`*.slow.test.ts`, `npm run test:slow`): the fuzzer, the bench smoke run, thousands of sockets.
 *
 * Unit and integration files share one process per worker (`isolate: false`): a fresh process
 * per file imported fastify and the simulator again for each of some 200 files. With that and two
 * workers, `npx vitest run` took 595 s on a 2-core machine, against 928 s with a process per file
 * and one worker (CHANGELOG). Every file starts and closes its own servers and fleets, and
 * restores what it stubs (`restoreMocks` restores the spies of any that does not).
 */
const OTHER_TIERS = [...configDefaults.exclude, '**/*.unit.test.ts', '**/*.heap.test.ts', '**/*.slow.test.ts']

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Worker-pool tests start real threads; forks keep them apart from vitest's own.
    pool: 'forks',
    // Two at least: the tests wait on servers, sockets and child processes for much of their time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    restoreMocks: true,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'], isolate: false } },
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts', 'examples/**/*.test.ts'], exclude: OTHER_TIERS, isolate: false }
      },
      { extends: true, test: { name: 'heap', include: ['test/**/*.heap.test.ts'] } },
      { extends: true, test: { name: 'slow', include: ['test/**/*.slow.test.ts'], testTimeout: 180_000 } }
    ]
  }
})
