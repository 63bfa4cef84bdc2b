// The SQS message a job becomes: the consumers' contract (docs/consumer.md, "The message").

export interface JobMessage<Payload = unknown> {
  id: string
  queue: string
  payload: Payload
  /** When the job was due (ISO). */
  runAt: string
  createdAt: string
  /**
   * When the scanner handed it to SQS (ISO): the moment its message was built, just before SendMessageBatch. Like
   * runAt and createdAt, on Redis's clock (the scanner's own clock converted with the offset it measures).
   */
  dispatchedAt: string
  /** Occurrences of a recurring schedule only: the schedule's id. */
  scheduleId?: string
  /** Occurrences of a recurring schedule only: the time this occurrence stands for (ISO; equals runAt). */
  occurrenceAt?: string
  /**
   * The job's tags (docs/tags-and-upserts.md), only when it has some: a redrive through the delay queue gives them
   * back to the job, so it is found and cancelled by tag again.
   */
  tags?: string[]
  /** The job's flow key (docs/flow-control.md), only when it has one: a redrive keeps the job under its key's rate. */
  flowKey?: string
}
