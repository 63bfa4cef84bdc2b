import { randomUUID } from 'node:crypto'
import { defineConfig } from 'vitest/config'
// @ts-expect-error plain ESM helper without types
import { luaTextVitePlugin } from './scripts/lua-text.mjs'

// Two projects: every suite against one redis-server ("redis"), and the engine suites plus the cluster scenarios
// against a local 3-master Redis Cluster ("cluster"). Each project has its own global setup: no shared settings
// here that vitest would merge (arrays such as include / globalSetup are concatenated by `extends`).
export default defineConfig({
  plugins: [luaTextVitePlugin()],
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time, also on a 2-core machine (vitest's default there is one): most of the suite's time is spent
    // waiting on real time (dispatch windows, relay looks, schedules, outages), not on the CPU. On 2 cores the whole
    // run took 336 s with two and 628 s with one, the same 544 tests passing.
    maxWorkers: 2,
    // Marks every process a test starts, so the run fails when one outlives it (test/support/leftovers.ts).
    env: { SDQ_TEST_RUN: randomUUID() },
    projects: [
      {
        extends: true,
        test: {
          name: 'redis',
          include: ['test/**/*.test.ts'],
          exclude: ['test/cluster/**', '**/node_modules/**'],
          globalSetup: ['test/support/leftover-check.ts', 'test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/engine/**/*.test.ts', 'test/cluster/**/*.test.ts'],
          globalSetup: ['test/support/cluster-setup.ts'],
        },
      },
    ],
  },
})
