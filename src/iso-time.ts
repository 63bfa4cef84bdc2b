// Epoch ms as ISO-8601 text (UTC, millisecond precision): the one form a time takes in an answer, a message or a log.
export function isoTime(ms: number): string {
  return new Date(ms).toISOString()
}

/** The same, or null for an epoch ms no date can show (where toISOString would throw). */
export function isoTimeOrNull(ms: number): string | null {
  const date = new Date(ms)
  return Number.isNaN(date.getTime()) ? null : date.toISOString()
}
