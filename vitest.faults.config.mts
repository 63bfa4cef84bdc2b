// The fault suite (`npm run test:faults`): the same files `npm test` runs shortened, at full size (FAULTS_SCALE),
// one file at a time (they start their own redis-server, fauxqs and scanner processes, and the machine has 2
// cores). When it ends, RELIABILITY.md's figures table is rendered from test/faults/results/*.json.
import { randomUUID } from 'node:crypto'
import { defineConfig } from 'vitest/config'
// @ts-expect-error plain ESM helper without types
import { luaTextVitePlugin } from './scripts/lua-text.mjs'

process.env.FAULTS_SCALE ??= 'full'

export default defineConfig({
  plugins: [luaTextVitePlugin()],
  test: {
    include: ['test/faults/**/*.test.ts', 'test/fuzz/**/*.test.ts'],
    globalSetup: ['test/support/leftover-check.ts', 'test/support/global-setup.ts', 'test/faults/report-teardown.ts'],
    // SDQ_TEST_RUN marks the processes tests start: test/support/leftover-check.ts fails the run if one outlives it.
    env: { FAULTS_SCALE: process.env.FAULTS_SCALE, SDQ_TEST_RUN: randomUUID() },
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
})
