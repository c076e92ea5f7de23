import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Worker-pool tests start real threads; forks keep them isolated from each other.
    pool: 'forks'
  }
})
