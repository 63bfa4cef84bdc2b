// Warming the way to SQS before a job falls due. The first call of a fresh SQS client pays for its connection (TCP,
// and TLS in AWS) and for the SDK's first-call work: ~50 ms against the local endpoint, where the next calls take
// ~3 ms. A kept-alive socket that sat idle may also have been closed by the server, and the SDK finds that out by
// failing and retrying. A scan started for a job due in a few seconds (on-demand mode), or a scanner that has been
// idle, would pay that in the job's lateness; while a shard sleeps until a due time, a warm-up pays it instead.
//
// The warm-up is a SendMessageBatch without entries: SQS refuses it (EmptyBatchRequest) with no side effect, over
// the connection the job's send reuses, and it needs no right beyond the scan's only one (sqs:SendMessage).
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs'

/** A connection that carried a call within this long counts as warm. */
export const WARM_AFTER_IDLE_MS = 5_000

export class SqsWarmUp {
  private lastCallAt = -Infinity
  private warming: Promise<void> | undefined
  /** One queue URL per endpoint the target queues live on (the SDK sends to the queue URL's host). */
  private readonly urls: string[]

  constructor(
    private readonly sqs: SQSClient,
    queueUrls: readonly string[],
  ) {
    const byOrigin = new Map<string, string>()
    for (const url of queueUrls) if (!byOrigin.has(originOf(url))) byOrigin.set(originOf(url), url)
    this.urls = [...byOrigin.values()]
  }

  /** A call to SQS just ended: the connection is warm. */
  used(): void {
    this.lastCallAt = Date.now()
  }

  /**
   * Warms the connections unless one carried a call within WARM_AFTER_IDLE_MS or a warm-up is under way; resolves
   * when SQS has answered (never rejects: the refusal is the expected answer, and a failure costs only the warm-up).
   */
  warm(): Promise<void> {
    if (this.warming) return this.warming
    if (Date.now() - this.lastCallAt < WARM_AFTER_IDLE_MS || this.urls.length === 0) return Promise.resolve()
    this.warming = Promise.all(
      this.urls.map((QueueUrl) =>
        this.sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: [] })).catch(() => {}),
      ),
    ).then(() => {
      this.used()
      this.warming = undefined
    })
    return this.warming
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}
