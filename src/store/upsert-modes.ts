// What a write does to a job that holds its id already (`onConflict` on POST / PUT /jobs, DelayQueue, the
// api-client), and the mode lua/enqueue.lua takes for each. Every mode is one run of that script: atomic against the
// scanner's claim. A stored job is one not yet handed to SQS (scheduled, waiting for a retry, or dead); a job being
// handed to SQS right now is refused (409), and an id whose job SQS has taken already is created anew (a new
// incarnation: version 0, a new creation time, so a FIFO queue's deduplication id differs from the last one's).
//
//   reject    a stored job refuses the write (409 with the job that holds the id): POST's default
//   replace   the write replaces it, payload and due time: PUT's default
//   extend    the due time becomes the write's, the stored payload stays (a stored job's queue, group and tags
//             become the write's, as with replace)
//   debounce  as replace, but the due time never goes past the job's first write (its creation) + maxWaitMs: a
//             stream of writes closer than their delay fires once per maxWaitMs, and once after the last of them
export const ON_CONFLICT = ['reject', 'replace', 'extend', 'debounce'] as const
export type OnConflict = (typeof ON_CONFLICT)[number]

/** ARGV[3] of lua/enqueue.lua. */
export type EnqueueMode = 'insert' | 'upsert' | 'extend' | 'debounce'

export function enqueueMode(onConflict: OnConflict): EnqueueMode {
  return onConflict === 'reject' ? 'insert' : onConflict === 'replace' ? 'upsert' : onConflict
}
