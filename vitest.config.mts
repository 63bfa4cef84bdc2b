import { randomUUID } from 'node:crypto'
import { defineConfig } from 'vitest/config'
// @ts-expect-error plain ESM helper without types
import { luaTextVitePlugin } from './scripts/lua-text.mjs'

// Four projects: every suite against one redis-server ("redis"), the engine suites where the topology matters plus the
// cluster scenarios against a local 3-master Redis Cluster ("cluster"), the chaos run ("chaos") and the other fault
// suites ("faults"). Each project has its own global
// setup: no shared settings here that vitest would merge (arrays such as include / globalSetup are concatenated by
// `extends`).
export default defineConfig({
  plugins: [luaTextVitePlugin()],
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time, also on a 2-core machine (vitest's default there is one): most of the suite's time is spent
    // waiting on real time (dispatch windows, relay looks, schedules), not on the CPU. On 2 cores the whole run took
    // 336 s with two and 628 s with one, the same 544 tests passing. The fault suites are the exception (below).
    maxWorkers: 2,
    // Marks every process a test starts, so the run fails when one outlives it (test/support/leftovers.ts).
    env: { SDQ_TEST_RUN: randomUUID() },
    projects: [
      {
        extends: true,
        test: {
          name: 'redis',
          include: ['test/**/*.test.ts'],
          exclude: ['test/cluster/**', 'test/faults/**', '**/node_modules/**'],
          globalSetup: ['test/support/leftover-check.ts', 'test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          // The engine files where the topology matters, run again against the Cluster: the key layout and every
          // script (a key outside the script's slot fails only there), claims and the FIFO merge over shards on
          // several masters, the per-shard markers enqueue reads (scan start, alive), fan-out, and the reads that
          // walk every node (overview, pending pages, dead set, operator reads). Left out: the logic about time
          // (dispatch windows, retry wake-ups, relay hand-over, schedules' series and clocks, redrive) and the pure
          // units; they address one shard's keys through the same scripts, so a Cluster adds nothing but their
          // run time (~180 s of the 265 s the project took when it ran every engine file).
          include: [
            'test/cluster/**/*.test.ts',
            ...[
              'ack-hold',
              'claims',
              'dead-set',
              'dispatch-clock',
              'dispatch-receipts',
              'fan-out',
              'fifo-dedup',
              'fifo-merge',
              'fifo-order',
              'layout',
              'maybe-dispatched',
              'on-demand',
              'operator-reads',
              'overview',
              'pending-page',
              'redis-errors',
              'scan-metrics',
              'scan-start',
              'scanner',
              'schedule-bounds',
              'schedules',
              'scripts',
              'store',
              'stored-formats',
            ].map((name) => `test/engine/${name}.test.ts`),
          ],
          globalSetup: ['test/support/cluster-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The 60 s chaos run beside the other files, not in the serial fault group: its checker reads the history
          // for promises only, never timing, so a loaded machine costs it nothing. vitest starts the projects of a
          // group in name order, so this one starts first and ends while the other files still run.
          name: 'chaos',
          include: ['test/faults/chaos.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          exclude: ['test/faults/chaos.test.ts', '**/node_modules/**'],
          globalSetup: ['test/support/global-setup.ts'],
          // One file at a time, after the others (vitest runs a project without file parallelism last): each starts
          // its own servers and scanner processes and loads both cores, and their bounds (e.g. one claimed batch sent
          // again per kill -9) assume the machine is theirs. Beside another file, scanner-kill sent 551 again where
          // 500 is the bound.
          fileParallelism: false,
        },
      },
    ],
  },
})
