// DelayQueue.scheduleMany: many jobs, each accepted or refused on its own, answered in input order. Invalid items are
// answered with their error and never reach Redis; the valid ones are stored in one pipeline per shard.
import type { Config } from '../config'
import { DelayQueueError } from '../errors'
import type { JobStore } from '../store/job-store'
import type { ScanStarter } from '../on-demand/start/scan-starter'
import { writableId } from './id-rules'
import { validateJob } from './validation'
import { requireIdWithKey } from './write-token'

/** `replayed`: an earlier attempt with the same idempotency key stored it (nothing changed now). */
export type BatchItemResult = { id: string; status: 'scheduled'; replayed?: true } | { error: DelayQueueError }

// The store pipelines one round trip per shard; chunks keep a huge scheduleMany from building one giant pipeline.
const CHUNK = 100

export interface BatchTarget {
  config: Config
  store: JobStore
  /** On-demand scan mode only. */
  starter?: ScanStarter
}

/**
 * `writeToken`: one idempotency key for the whole call, kept with each job under its id (so every job needs an id):
 * the same call sent again, whole or in part, is answered job by job as its earlier attempts were.
 */
export async function scheduleMany(
  target: BatchTarget,
  inputs: readonly unknown[],
  writeToken?: string,
): Promise<BatchItemResult[]> {
  const results: BatchItemResult[] = []
  for (let start = 0; start < inputs.length; start += CHUNK) {
    results.push(...(await scheduleChunk(target, inputs.slice(start, start + CHUNK), writeToken)))
  }
  return results
}

async function scheduleChunk(
  { config, store, starter }: BatchTarget,
  inputs: readonly unknown[],
  writeToken: string | undefined,
): Promise<BatchItemResult[]> {
  const results: BatchItemResult[] = new Array(inputs.length)
  const valid: { index: number; job: ReturnType<typeof validateJob> & { writeToken?: string } }[] = []
  inputs.forEach((input, index) => {
    try {
      const job = validateJob(input, config)
      // The Scheduler-compatible API writes one job at a time: no batch may write its ids.
      writableId(job.id)
      requireIdWithKey(input, writeToken)
      valid.push({ index, job: writeToken ? { ...job, writeToken } : job })
    } catch (e) {
      if (!(e instanceof DelayQueueError)) throw e
      results[index] = { error: e }
    }
  })
  const stored = await store.enqueueMany(valid.map((v) => v.job))
  await starter?.afterEnqueue(stored)
  stored.forEach((r, k) => {
    results[valid[k]!.index] =
      r instanceof DelayQueueError
        ? { error: r }
        : { id: r.id, status: 'scheduled', ...(r.replayed ? { replayed: true as const } : {}) }
  })
  return results
}
