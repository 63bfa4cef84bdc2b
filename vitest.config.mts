import { randomUUID } from 'node:crypto'
import { defineConfig } from 'vitest/config'
// @ts-expect-error plain ESM helper without types
import { luaTextVitePlugin } from './scripts/lua-text.mjs'
import LongestFirstSequencer from './test/support/sequencer.mjs'

// Four projects: every suite against one redis-server ("redis"), the engine suites where the topology matters plus
// the cluster scenarios against a local 3-master Redis Cluster ("cluster"), the fault files whose checks read outcomes
// only, the chaos runs among them ("outcome-faults", beside the others), and the fault files that need the machine to
// themselves ("faults", one at a time, last). Each project has its own global setup: no shared settings here that
// vitest would merge (arrays such as include / globalSetup are concatenated by `extends`).
// The fault files that run beside the others (the 'outcome-faults' project below says why).
const OUTCOME_FAULTS = [
  'test/faults/chaos-*.test.ts',
  ...['failover', 'cluster-failover', 'split-brain', 'replica-cut', 'redis-auth'].map(
    (name) => `test/faults/${name}.test.ts`,
  ),
]

export default defineConfig({
  plugins: [luaTextVitePlugin()],
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Six files at a time, also on a 2-core machine: most of the suite's time is spent waiting on real time
    // (dispatch windows, relay looks, schedules, Sentinel's failover), not on the CPU, and the two chaos runs hold two
    // of them for their first ~85 s. With other work beside it (load 9-13) a whole run took 314 s with four and 290 s
    // with six (283 CPU seconds; the files' own times grew by a third, so the bounds in them must not be tight);
    // earlier, with one chaos file, 311 s with four and 372 s with three (load 8-10). The fault suites whose bounds
    // assume the machine is theirs run one at a time all the same, after the others (below).
    maxWorkers: 6,
    // The longest files first, over all projects (test/support/sequencer.mts).
    sequence: { sequencer: LongestFirstSequencer },
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
          // The engine files again, against the Cluster, where the topology matters: the key layout and every
          // script (a key outside the script's slot fails only there), claims and the FIFO merge over shards on
          // several masters, the per-shard markers enqueues read (scan start, alive), fan-out, the reads that walk
          // every node. Left out: the files about time (dispatch windows, retry wake-ups, the relay hand-over,
          // schedules' series, clocks and settling, redrive) and the pure units. They go through the same scripts on
          // one shard's keys, so a Cluster adds nothing to what they prove, only their run time. A new engine file
          // runs here unless it is listed.
          include: ['test/engine/**/*.test.ts', 'test/cluster/**/*.test.ts'],
          exclude: [
            '**/node_modules/**',
            ...[
              'backoff',
              'cpu-share',
              'dispatch-window',
              'dispatch-window-edges',
              'dispatcher',
              'send-pace',
              'deep-page-rate',
              'timeout-retry',
              'redis-clock',
              'redrive',
              'retry-wake',
              'scan-relay',
              'schedule-clock',
              'schedule-retry',
              'schedule-series',
              'schedule-settle',
              'settle-retry-time',
            ].map((name) => `test/engine/${name}.test.ts`),
          ],
          globalSetup: ['test/support/cluster-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The fault files whose checks are about outcomes (what was lost, fired after a cancel, sent twice) run
          // beside the other files rather than in the serial fault group: their time limits are wide (a promotion
          // within 30 s, a drain within 90 s), and the chaos runs' duplicate bound grows with the sends that timed
          // out on a loaded machine, which the scanners report as they happen (test/chaos/check-duplicates.ts). The
          // two 60 s chaos runs (Sentinel, Cluster: one file each, so they run side by side); the Sentinel and
          // Cluster failovers (lost and resurrected writes, a promotion within 30 s, everything drained: most of their
          // time is the failover's own wait); split-brain (what each primary sent); the replica cut and the Redis AUTH cases. They start
          // first (test/support/sequencer.mts). In the serial group they were ~48 s of its ~83. The Sentinel failover
          // lost acknowledged writes here twice, under load: a sentinel declared the live new primary down and a
          // second failover promoted the replica that had not confirmed them. That came from a down-after of 1 s,
          // Sentinel's own ping period (local/redis-sentinel.ts says why); at 2 s, 0 second failovers in 29 loaded
          // runs against 4 in 30.
          name: 'outcome-faults',
          include: OUTCOME_FAULTS,
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          exclude: [...OUTCOME_FAULTS, '**/node_modules/**'],
          globalSetup: ['test/support/global-setup.ts'],
          // One file at a time, after the others (vitest runs a project without file parallelism last): each starts
          // its own servers and scanner processes and loads both cores, and their bounds assume the machine is theirs:
          // one claimed batch sent again per kill -9 (scanner-kill; beside another file it sent 551 again where 500 is
          // the bound), an answer within 8 s during an outage (redis-outage), no job accepted 1 s before a crash lost
          // to appendfsync everysec (redis-crash), refused sends retried before a job is dead (sqs-faults), four
          // scanners sharing one backlog (four-scanners).
          fileParallelism: false,
        },
      },
    ],
  },
})
