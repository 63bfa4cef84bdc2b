// Epoch ms as ISO-8601 text (UTC, millisecond precision): the one form a time takes in an answer, a message or a log.
export function isoTime(ms: number): string {
  return new Date(ms).toISOString()
}
