// lua/enqueue.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order),
// its success codes (EnqueueStatus) and the reply read into what its status carries (decodeEnqueue).
import type { ScriptErrorCode } from '../script-errors'
import type { ScanStartOptions } from '../../on-demand/start/scan-start'
import type { JobState } from '../job-state'
import { receiptSlot, type JobLocation } from '../keys'
import type { NewJob } from '../new-job'
import type { ScriptCall } from '../scripts'
import type { EnqueueMode } from '../upsert-modes'
import { jobSideKeys } from './job-side-keys'

/**
 * lua/enqueue.lua: { 1 | 2, dueMs, createdAtMs, version, startScanner }; a write token applied before: { 3, dueMs,
 * createdAtMs, version, queue, groupId } (still stored) or { 4, receipt } (dispatched since); or { -1, state, record,
 * score }, { -2 }, { -5 }, { -6 }. Read it with decodeEnqueue.
 */
export type EnqueueReply = [number, ...(number | string)[]]

/** lua/enqueue.lua's success codes, the first element of its reply (a negative one is a ScriptErrorCode). */
export enum EnqueueStatus {
  Created = 1,
  Replaced = 2,
  /** The write token was applied by an earlier attempt, whose job is still stored. */
  ReplayedStored = 3,
  /** The write token was applied by an earlier attempt, and SQS has taken the job since. */
  ReplayedDispatched = 4,
}

interface EnqueuedTimes {
  dueMs: number
  createdAtMs: number
  version: number
}

/** An enqueue reply, read: what its status says, with the fields that status carries. */
export type DecodedEnqueue =
  | ({ status: EnqueueStatus.Created | EnqueueStatus.Replaced; startScanner: boolean } & EnqueuedTimes)
  | ({ status: EnqueueStatus.ReplayedStored; queue: string; groupLine: string } & EnqueuedTimes)
  | { status: EnqueueStatus.ReplayedDispatched; receipt: string }
  | { status: 'refused'; code: ScriptErrorCode; existing?: { state: JobState; record: string; score: number } }

export function decodeEnqueue(reply: EnqueueReply): DecodedEnqueue {
  const [code, a, b, c, d, e] = reply
  const status = Number(code)
  if (status < 0) {
    // JOB_EXISTS carries the job that holds the id; the other refusals carry nothing
    const existing = a === undefined ? undefined : { state: a as JobState, record: String(b), score: Number(c) }
    return { status: 'refused', code: status as ScriptErrorCode, ...(existing ? { existing } : {}) }
  }
  if (status === EnqueueStatus.ReplayedDispatched) return { status, receipt: String(a) }
  const times = { dueMs: Number(a), createdAtMs: Number(b), version: Number(c) }
  if (status === EnqueueStatus.ReplayedStored) return { status, ...times, queue: String(d), groupLine: String(e ?? '') }
  if (status === EnqueueStatus.Created || status === EnqueueStatus.Replaced) {
    return { status, ...times, startScanner: Number(d) === 1 }
  }
  throw new Error(`enqueue replied with an unknown status ${status}`)
}

/** A NewJob as enqueue takes it: with the write's mode, and groupId "" for none. */
export interface EnqueueParams extends Omit<NewJob, 'groupId'> {
  mode: EnqueueMode
  groupId: string
  /** On-demand scan mode (src/on-demand/start/scan-start.ts); absent: never ask for a scanner. */
  scanStart?: ScanStartOptions
  /** With a write token: the hours whose receipt hashes may hold this id's receipt, newest first (receiptHours). */
  receiptHours?: readonly number[]
}

export function enqueueCall({ shard, bucket, bucketNo }: JobLocation, job: EnqueueParams): ScriptCall<EnqueueReply> {
  // The record is "\n"-separated (src/store/record.ts): a newline in these would corrupt it.
  if (job.queue.includes('\n') || job.groupId.includes('\n')) throw new Error('queue and groupId cannot hold "\\n"')
  const [kind, when] = 'delayMs' in job.due ? ['delay', job.due.delayMs] : ['at', job.due.atMs]
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
