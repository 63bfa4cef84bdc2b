// One SendMessageBatch call for a lane's batch, and what SQS said about each entry: accepted, refused as the job's
// fault, or failed for reasons that are not (network, throttling, server errors).
import type { SQSClient } from '@aws-sdk/client-sqs'
import { deduplicationId, JOB_ID_ATTRIBUTE } from '../../sqs/envelope'
import { mayHaveArrived } from '../../sqs/arrival'
import { SendTimeoutError, sendMessageBatchBody, sendPrebuilt } from '../../sqs/prebuilt-body'
import { type FailedLines, groupOf, holdBackGroups, lineUp, type Lane, type QueuedSend, type SendResult } from './lane'
import type { PaceChange, SendPace } from './send-pace'

/** How long the call may take, and what it tells about SQS's pace (src/scan/dispatch/send-pace.ts). */
export interface CallPace {
  pace: SendPace
  /** A timeout began a new round: the pace slowed down. */
  slowed?(change: PaceChange): void
}

/**
 * The pace's timeout bounds the whole call (SDK attempts and the answer's body): a call past it ends as failed and
 * maybe sent (its jobs are released for a retry, marked "may have been accepted"), never as a lane stuck waiting for
 * it.
 */
export async function sendBatch(sqs: SQSClient, lane: Lane, batch: QueuedSend[], paced: CallPace): Promise<void> {
  // The request's JSON is built here, not by the SDK's serializer (src/sqs/prebuilt-body.ts: CPU per message).
  const entries = batch.map(({ job, body }, i) => ({
    Id: `e${i}`,
    MessageBody: body,
    jobId: job.id,
    ...(lane.fifo
      ? { MessageGroupId: groupOf(job), MessageDeduplicationId: deduplicationId(job.id, job.version, job.createdAtMs) }
      : {}),
  }))
  const results: (SendResult | undefined)[] = new Array(batch.length)
  const answer = (i: number, result: SendResult) => {
    if (results[i] || !batch[i]) return
    results[i] = result
  }
  const sentAtMs = Date.now()
  let holdMs: number | undefined
  try {
    const result = await sendPrebuilt(
      sqs,
      lane.queueUrl,
      sendMessageBatchBody(lane.queueUrl, entries, JOB_ID_ATTRIBUTE),
      paced.pace.timeoutMs,
    )
    const acceptedAtMs = Date.now()
    paced.pace.answered(sentAtMs)
    for (const ok of result.Successful ?? []) {
      answer(Number(ok.Id!.slice(1)), { sentAtMs, acceptedAtMs, messageId: ok.MessageId ?? '' })
    }
    for (const failed of result.Failed ?? []) {
      answer(Number(failed.Id!.slice(1)), {
        error: `SQS refused the message: ${failed.Code ?? 'error'}: ${failed.Message ?? ''}`.trim(),
        jobsFault: failed.SenderFault !== false,
      })
    }
    // An entry SQS did not mention is not taken for accepted, nor for refused: it is sent again, and may run twice.
    batch.forEach((_, i) =>
      answer(i, { error: 'SQS did not answer for this entry', jobsFault: false, maybeSent: true }),
    )
  } catch (e) {
    const error = `SendMessageBatch failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`
    const jobsFault = isClientFault(e)
    const maybeSent = !jobsFault && mayHaveArrived(e)
    // A timed-out send is retried no sooner than SQS's answers take now (src/scan/claims/backoff.ts delayOf); one
    // that failed fast (a reset connection, a 5xx) at its backoff, as before: nothing says SQS is slow.
    if (tellPace(paced, e, sentAtMs) && maybeSent) holdMs = paced.pace.holdMs
    batch.forEach((_, i) => answer(i, { error, jobsFault, maybeSent }))
  }
  // Settled in claim order, so that a FIFO group's jobs not sent line up behind the first of them (lineUp).
  const lines: FailedLines = new Map()
  batch.forEach((entry, i) => {
    const result = results[i]!
    // Before anything draws its retry time (a FIFO group's hold reads it too): src/scan/claims/backoff.ts delayOf.
    if (holdMs !== undefined) entry.job.holdMs = holdMs
    const after = lane.fifo && 'error' in result ? lineUp(lines, entry.job) : undefined
    entry.settle(entry.job, after ? { ...result, after } : result)
  })
  if (lines.size) holdBackGroups(lane, lines)
}

/**
 * A call that ended in an error: a timeout slows the pace down, an answer from SQS (a 4xx, a 5xx) is an answer.
 * Returns whether it timed out.
 */
function tellPace({ pace, slowed }: CallPace, e: unknown, sentAtMs: number): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } }
  if (e instanceof SendTimeoutError || err?.name === 'TimeoutError') {
    const change = pace.timedOut(sentAtMs)
    if (change) slowed?.(change)
    return true
  }
  if (err?.$metadata?.httpStatusCode !== undefined) pace.answered(sentAtMs)
  return false
}

/**
 * A call SQS rejected as the caller's fault (a 4xx: the queue does not exist, access denied, a bad parameter) will
 * fail the same way again: it counts toward the dead set. Network errors, 5xx and throttling are SQS's or the
 * network's trouble and pass.
 */
function isClientFault(e: unknown): boolean {
  const err = e as { $fault?: string; $metadata?: { httpStatusCode?: number }; name?: string }
  const status = err?.$metadata?.httpStatusCode
  if (err?.$fault !== 'client' || status === undefined) return false
  return status >= 400 && status < 500 && status !== 429 && !/throttl/i.test(err.name ?? '')
}
