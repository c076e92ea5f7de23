import { configDefaults, defineConfig } from 'vitest/config'

// The slow tier (`*.slow.test.ts`: long holds, thousands of sockets) runs on its own with
// `npm run test:slow`, which sets FLEETSIM_SLOW_TESTS; `npm test` leaves it out.
const slowTier = process.env.FLEETSIM_SLOW_TESTS === '1'

export default defineConfig({
  test: {
    include: slowTier ? ['test/**/*.slow.test.ts'] : ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: slowTier ? configDefaults.exclude : [...configDefaults.exclude, '**/*.slow.test.ts'],
    testTimeout: slowTier ? 180_000 : 30_000,
    hookTimeout: 60_000,
    // Worker-pool tests start real threads; forks keep them isolated from each other.
    pool: 'forks'
  }
})
