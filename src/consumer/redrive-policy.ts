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

type Entry = { value: number | null; dlqArn?: string; until: number } | { failed: string; until: number }
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
  const entry = await policyOf(sqs, queueUrl, timeoutMs, onFailure, now)
  return 'failed' in entry ? undefined : entry.value
}

/** The ARN of the queue's DLQ from the same (kept) read; undefined without one or when it could not be read. */
export async function deadLetterArnOf(
  sqs: SQSClient,
  queueUrl: string,
  timeoutMs: number,
  onFailure: (reason: string) => void,
): Promise<string | undefined> {
  const entry = await policyOf(sqs, queueUrl, timeoutMs, onFailure, Date.now)
  return 'failed' in entry ? undefined : entry.dlqArn
}

async function policyOf(
  sqs: SQSClient,
  queueUrl: string,
  timeoutMs: number,
  onFailure: (reason: string) => void,
  now: () => number,
): Promise<Entry> {
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
  return entry
}

async function readPolicy(sqs: SQSClient, queueUrl: string, timeoutMs: number, now: () => number): Promise<Entry> {
  try {
    const out = await withinMs(timeoutMs, (abortSignal) =>
      sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }), {
        abortSignal,
      }),
    )
    const policy = out.Attributes?.RedrivePolicy
    const parsed = policy ? (JSON.parse(policy) as { maxReceiveCount?: unknown; deadLetterTargetArn?: unknown }) : {}
    const count = Number(parsed.maxReceiveCount)
    const dlqArn = typeof parsed.deadLetterTargetArn === 'string' ? parsed.deadLetterTargetArn : undefined
    return { value: Number.isInteger(count) && count >= 1 ? count : null, dlqArn, until: now() + KEEP_MS }
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error), until: now() + KEEP_FAILURE_MS }
  }
}

/** Tests only: forget what was read. */
export function forgetRedrivePolicies(): void {
  known.clear()
}
