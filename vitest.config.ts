import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Three tiers, told apart by the file name; `npm test` runs all of them:
 * - unit (`*.unit.test.ts`, `npm run test:unit`): no server, no worker thread, no child process;
 * - integration (every other `*.test.ts`): real fleets, apps, servers and commands;
 * - slow (`*.slow.test.ts`, `npm run test:slow`): the fuzzer, the bench smoke run, thousands of sockets.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Worker-pool tests start real threads; forks keep them isolated from each other.
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: [...configDefaults.exclude, '**/*.unit.test.ts', '**/*.slow.test.ts']
        }
      },
      { extends: true, test: { name: 'slow', include: ['test/**/*.slow.test.ts'], testTimeout: 180_000 } }
    ]
  }
})
