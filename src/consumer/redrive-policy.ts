// The queue's maxReceiveCount, read from its redrive policy with GetQueueAttributes (the permission the event source
// mapping's role already has) and kept per container: a failure on the last receive is not worth a backoff, since
// SQS moves the message to the DLQ on its next receive anyway. Without this the last failure waited out a full
// backoff (up to the cap: 12 h) before reaching the DLQ.
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { withinMs } from './deadline'

/** How long an answer is kept: an operator's change to the redrive policy is seen within this. */
const KEEP_MS = 10 * 60_000
/** A failed read is not retried by every invocation (each would wait for it again). */
const KEEP_FAILURE_MS = 60_000

type Entry = { value: number | null; until: number } | { failed: string; until: number }
const known = new Map<string, Entry>()
const pending = new Map<string, Promise<Entry>>()

/**
 * The queue's maxReceiveCount; null when it has no redrive policy (no DLQ: no last attempt); undefined when it could
 * not be read in `timeoutMs` (then `onFailure` hears why, once per failed read).
 */
export async function maxReceiveCountOf(
  sqs: SQSClient,
  queueUrl: string,
  timeoutMs: number,
  onFailure: (reason: string) => void,
  now = Date.now,
): Promise<number | null | undefined> {
  let entry = known.get(queueUrl)
  if (!entry || entry.until <= now()) {
    let read = pending.get(queueUrl)
    if (!read) {
      read = readPolicy(sqs, queueUrl, timeoutMs, now).then((e) => {
        known.set(queueUrl, e)
        pending.delete(queueUrl)
        if ('failed' in e) onFailure(e.failed)
        return e
      })
      pending.set(queueUrl, read)
    }
    entry = await read
  }
  return 'failed' in entry ? undefined : entry.value
}

async function readPolicy(sqs: SQSClient, queueUrl: string, timeoutMs: number, now: () => number): Promise<Entry> {
  try {
    const out = await withinMs(timeoutMs, (abortSignal) =>
      sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }), {
        abortSignal,
      }),
    )
    const policy = out.Attributes?.RedrivePolicy
    const count = policy ? Number((JSON.parse(policy) as { maxReceiveCount?: unknown }).maxReceiveCount) : Number.NaN
    return { value: Number.isInteger(count) && count >= 1 ? count : null, until: now() + KEEP_MS }
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error), until: now() + KEEP_FAILURE_MS }
  }
}

/** Tests only: forget what was read. */
export function forgetRedrivePolicies(): void {
  known.clear()
}
