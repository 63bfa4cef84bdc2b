// The 60 s chaos run with a fixed seed (test/chaos/), shared by the two chaos files: one on Sentinel, one on a Redis
// Cluster. Two files, not two cases of one file, so vitest runs them side by side beside the other files (one file
// holding both kept a worker for ~170 s, the longest path of the whole suite). The checker reads the recorded
// history only: every promise must hold. Not all of them are free of timing: an acknowledged write must reach a
// consumer before the drain gives up (90 s after the last due time), and a loaded machine makes sends time out, each
// of which may leave a copy in SQS. The scanners report those sends as they happen and the duplicate bound grows by
// one copy per entry (test/chaos/check-duplicates.ts), so load widens that bound by what it can cause and no more.
// On failure the message carries the seed and the slice of history that breaks a promise; rerun it with
// `npm run chaos -- --minutes 1 --seed <seed>` (add `--cluster` for the Cluster).
import { expect } from 'vitest'
import { formatVerdict } from '../chaos/checker'
import { runChaos } from '../chaos/run'

export const CHAOS_SEED = 20261126
export const CHAOS_TIMEOUT_MS = 600_000

export async function expectChaosRunKeepsEveryPromise(cluster: boolean): Promise<void> {
  // act
  const { history, verdict } = await runChaos({ durationMs: 60_000, seed: CHAOS_SEED, cluster })

  // assess: the run did something, and the checker found nothing
  const report = formatVerdict(history, verdict)
  expect(history.faults.length, report).toBeGreaterThanOrEqual(6)
  expect(verdict.figures['acknowledged-delivered'].checked, report).toBeGreaterThan(100)
  expect(verdict.figures['fifo-order'].checked, report).toBeGreaterThan(50)
  expect(verdict.figures['rate-bounded'].checked, report).toBeGreaterThan(50)
  expect(verdict.figures['paused-held'].pauses, report).toBeGreaterThan(0)
  // one seed's Sentinel run: 26 cancels by tag and 21 debounced versions judged
  expect(verdict.figures['tag-cancel-holds'].checked, report).toBeGreaterThan(5)
  expect(verdict.figures['debounce-quiet'].checked, report).toBeGreaterThan(5)
  // Sentinel 31-32 and Cluster 36 tagged schedule versions judged after 13 and 15 deletes by tag
  expect(verdict.figures['schedule-tag-delete-holds'].checked, report).toBeGreaterThan(5)
  expect(verdict.valid, report).toBe(true)
}
