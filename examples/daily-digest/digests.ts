// The digest outbox: what was sent to whom, for which occurrence. An occurrence can be delivered more than once
// (at least once, like any job); it is sent once.
export interface SentDigest {
  userId: string
  /** The occurrence this digest is for (ISO): the schedule's time, not the delivery time. */
  occurrenceAt: string
  sentAt: number
}

export class Outbox {
  readonly sent: SentDigest[] = []
  private readonly keys = new Set<string>()

  /** Records the digest; false when this occurrence was sent already. */
  record(userId: string, occurrenceAt: string): boolean {
    const key = `${userId}@${occurrenceAt}`
    if (this.keys.has(key)) return false
    this.keys.add(key)
    this.sent.push({ userId, occurrenceAt, sentAt: Date.now() })
    return true
  }
}
