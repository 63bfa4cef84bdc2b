// A leased job that flow control held earlier (lua/flow-hold.lua, a claim's pace: lua/includes/flowPace.lua) and that
// comes back to the scanner's gate: whether a rate already counted it, and its place if a pause now holds it. Its
// lease keeps its due time; the time it came back at is only its orderMs.
import { isFifoQueue } from '../queues'
import type { ClaimedJob } from '../scan/claims/claimed-job'

/**
 * Whether flow control held the job already in this attempt: a hold (a claim's pace, a rate's or a pause's:
 * lua/flow-hold.lua) leaves its attempt uncounted and it comes back at the hold's time, not its due time, as orderMs
 * (lua/includes/retakeExpired.lua). A dispatch retry is a later attempt; a crash recovery comes back at its due time.
 */
export function heldBefore(job: ClaimedJob): boolean {
  return job.attempt === 1 && job.orderMs !== job.dueMs
}

/**
 * A job's place among a pause's held jobs (its held view's dueAt, its turn on resume): its due time, not the time it
 * came back at (a claim's pace, a rate's or an earlier pause's hold, a retry). A FIFO job keeps its place in its
 * group's order (orderMs: a retry's time), by which the resume puts the group back in order across shards.
 */
export function pausePlace(job: ClaimedJob): number {
  return isFifoQueue(job.queue) ? job.orderMs : job.dueMs
}
