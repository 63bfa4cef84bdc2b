// What each Lua script receives: one builder per script, from a shard's keys (or a job's location in it) and named
// parameters. Only these builders know the order of a script's KEYS and ARGV: they list them by name, in the order of
// the script's header (test/engine/scripts.test.ts holds the two together), and the key count follows from the list.
// Call sites pass names: a key cannot be swapped for another, nor a bucket for one of another shard.
import { parseOccurrenceId } from '../schedule/occurrence-id'
import type { JobState } from './job-state'
import { receiptSlot, type JobLocation } from './keys'
import type { NewJob } from './new-job'
import type { ScanStartOptions } from './scan-start'
import type { ScriptCall } from './scripts'
import type { EnqueueMode } from './upsert-modes'

/**
 * lua/enqueue.lua: { 1 | 2, dueMs, createdAtMs, version, startScanner }; a write token applied before: { 3, dueMs,
 * createdAtMs, version, queue, groupId } (still stored) or { 4, receipt } (dispatched since); or { -1, state, record,
 * score }, { -2 }, { -5 }, { -6 }.
 */
export type EnqueueReply = [number, ...(number | string)[]]

/** A NewJob as enqueue takes it: with the write's mode, and groupId "" for none. */
export interface EnqueueParams extends Omit<NewJob, 'groupId'> {
  mode: EnqueueMode
  groupId: string
  /** On-demand scan mode (src/store/scan-start.ts); absent: never ask for a scanner. */
  scanStart?: ScanStartOptions
  /** With a write token: the hours whose receipt hashes may hold this id's receipt, newest first (receiptHours). */
  receiptHours?: readonly number[]
}

/** The whole job side of a shard around one bucket, in the order enqueue, cancel and the schedule scripts take it. */
export function jobSideKeys({ shard, bucket }: Pick<JobLocation, 'shard' | 'bucket'>) {
  return {
    jobs: shard.jobs,
    index: shard.index,
    bucket,
    inflight: shard.inflight,
    leases: shard.leases,
    errors: shard.errors,
    dead: shard.dead,
    counts: shard.counts,
  }
}

export function enqueueCall({ shard, bucket, bucketNo }: JobLocation, job: EnqueueParams): ScriptCall<EnqueueReply> {
  // The record is "\n"-separated (src/store/record.ts): a newline in these would corrupt it.
  if (job.queue.includes('\n') || job.groupId.includes('\n')) throw new Error('queue and groupId cannot hold "\\n"')
  const [kind, when] = 'delayMs' in job.schedule ? ['delay', job.schedule.delayMs] : ['at', job.schedule.atMs]
  return {
    script: 'sdqEnqueue',
    keys: {
      ...jobSideKeys({ shard, bucket }),
      scanner: shard.scannerAlive,
      start: shard.scanStart,
      tags: shard.tags,
      // Only a write with a token looks for a receipt carrying it.
      receipts: job.writeToken ? (job.receiptHours ?? []).map((h) => shard.receipts(h, receiptSlot(job.id))) : [],
    },
    args: {
      id: job.id,
      bucketNo,
      mode: job.mode,
      queue: job.queue,
      groupId: job.groupId,
      payload: job.payloadJson,
      kind,
      when,
      wake: shard.wakeChannel,
      startHorizon: job.scanStart?.horizonMs ?? 0,
      startGuardMs: job.scanStart?.guardMs ?? 0,
      writeToken: job.writeToken ?? '',
      createdAtMs: job.createdAtMs ?? '',
      tags: job.tags?.join('\n') ?? '',
      maxWaitMs: job.mode === 'debounce' ? (job.maxWaitMs ?? 0) : 0,
    },
  }
}

/** lua/get.lua: { state, record, score, attempt, lastError }, { 'dispatched', receipt }, or null. */
export type GetReply = [JobState, string, string, string | number, string] | ['dispatched', string] | null

/** `receiptHours`: the hours whose receipt hashes to search, newest first (src/store/receipt.ts); none: no receipts. */
export function getCall(
  { shard, bucket }: JobLocation,
  id: string,
  receiptHours: readonly number[] = [],
): ScriptCall<GetReply> {
  const slot = receiptSlot(id)
  return {
    script: 'sdqGet',
    keys: {
      jobs: shard.jobs,
      bucket,
      inflight: shard.inflight,
      leases: shard.leases,
      errors: shard.errors,
      dead: shard.dead,
      receipts: receiptHours.map((h) => shard.receipts(h, slot)),
    },
    args: { id },
  }
}

/** lua/cancel.lua: 1, or a ScriptErrorCode. */
export function cancelCall({ shard, bucket, bucketNo }: JobLocation, id: string): ScriptCall<number> {
  return {
    script: 'sdqCancel',
    keys: {
      ...jobSideKeys({ shard, bucket }),
      schedules: shard.schedules,
      tags: shard.tags,
    },
    args: { id, bucketNo, scheduleId: parseOccurrenceId(id)?.scheduleId ?? '' },
  }
}

/** lua/revive.lua: the new due time (ms), or ScriptErrorCode.JobNotFound (0). */
export function reviveCall({ shard, bucket, bucketNo }: JobLocation, id: string, delayMs: number): ScriptCall<number> {
  return {
    script: 'sdqRevive',
    keys: {
      jobs: shard.jobs,
      index: shard.index,
      bucket,
      errors: shard.errors,
      dead: shard.dead,
      counts: shard.counts,
    },
    args: { id, bucketNo, delayMs, wake: shard.wakeChannel },
  }
}
