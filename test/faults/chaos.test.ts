// Scenario: a 60 s chaos run with a fixed seed (test/chaos/): real Redis primary + 2 replicas + 3 sentinels, the
// local SQS behind the fault proxy, the API, 3 scanner processes, client lanes writing through the signed API client
// (a standard and a FIFO queue), consumers, and a nemesis combining scanner kills / pauses / partitions / skewed
// clocks, primary kills with and without a replica cut, API partitions, and SQS refusals / outages / answers dropped.
// Then the same on a Redis Cluster of 3 masters with a replica each (master kills instead of Sentinel failovers, no
// partitions). The checker reads the recorded history only: every promise must hold. It checks promises, never
// timing (the machine may be loaded). On failure the message carries the seed and the slice of history that breaks a
// promise; rerun it with `npm run chaos -- --minutes 1 --seed <seed>` (add `--cluster` for the second).
import { expect, it } from 'vitest'
import { formatVerdict } from '../chaos/checker'
import { runChaos } from '../chaos/run'

const SEED = 20261126

it.each([
  { redis: 'Sentinel', cluster: false },
  { redis: 'a Redis Cluster', cluster: true },
])(
  'keeps every promise through a 60 s chaos run (fixed seed) on $redis',
  async ({ cluster }) => {
    // act
    const { history, verdict } = await runChaos({ durationMs: 60_000, seed: SEED, cluster })

    // assess: the run did something, and the checker found nothing
    const report = formatVerdict(history, verdict)
    expect(history.faults.length, report).toBeGreaterThanOrEqual(6)
    expect(verdict.figures['acknowledged-delivered'].checked, report).toBeGreaterThan(100)
    expect(verdict.figures['fifo-order'].checked, report).toBeGreaterThan(50)
    expect(verdict.valid, report).toBe(true)
  },
  600_000,
)
