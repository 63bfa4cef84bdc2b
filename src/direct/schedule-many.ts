// DelayQueue.scheduleMany: many jobs, each accepted or refused on its own, answered in input order. Invalid items are
// answered with their error and never reach Redis; the valid ones are stored in one pipeline per shard.
import type { Config } from '../config'
import { DelayQueueError } from '../errors'
import type { JobStore } from '../store/job-store'
import type { ScanStarter } from './scan-starter'
import { validateJob } from './validation'

export type BatchItemResult = { id: string; status: 'scheduled' } | { error: DelayQueueError }

// The store pipelines one round trip per shard; chunks keep a huge scheduleMany from building one giant pipeline.
const CHUNK = 100

export interface BatchTarget {
  config: Config
  store: JobStore
  /** On-demand scan mode only. */
  starter?: ScanStarter
}

export async function scheduleMany(target: BatchTarget, inputs: readonly unknown[]): Promise<BatchItemResult[]> {
  const results: BatchItemResult[] = []
  for (let start = 0; start < inputs.length; start += CHUNK) {
    results.push(...(await scheduleChunk(target, inputs.slice(start, start + CHUNK))))
  }
  return results
}

async function scheduleChunk(
  { config, store, starter }: BatchTarget,
  inputs: readonly unknown[],
): Promise<BatchItemResult[]> {
  const results: BatchItemResult[] = new Array(inputs.length)
  const valid: { index: number; job: ReturnType<typeof validateJob> }[] = []
  inputs.forEach((input, index) => {
    try {
      valid.push({ index, job: validateJob(input, config) })
    } catch (e) {
      if (!(e instanceof DelayQueueError)) throw e
      results[index] = { error: e }
    }
  })
  const stored = await store.enqueueMany(valid.map((v) => v.job))
  await starter?.afterEnqueue(stored)
  stored.forEach((r, k) => {
    results[valid[k]!.index] = r instanceof DelayQueueError ? { error: r } : { id: r.id, status: 'scheduled' }
  })
  return results
}
