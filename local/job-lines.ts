// The dev terminal's view of the consumers' work: one short line per job outcome, instead of the consumer toolkit's
// JSON log lines (a dozen Powertools fields each, among the API's and the scan's lines), so that a new user sees
// at a glance that a job ran, how late, and why one failed. `npm run dev -- --verbose` prints the JSON lines too.

interface ConsumerLogLine {
  message?: string
  jobId?: string
  queue?: string
  attempt?: number
  latenessMs?: number
  durationMs?: number
  retryInSeconds?: number
  maxReceiveCount?: number
  messageId?: string
  error?: { message?: string } | string
}

import { LAST_ATTEMPT } from '../src/consumer/record-handler'

const OUTCOMES = new Set(['job received', 'job done', 'job failed', LAST_ATTEMPT])

/**
 * The line to print for one line of output: a short line for a job's outcome, `null` for a consumer line the outcome
 * line stands for (`job received`: its `job done` or `job failed` follows), `undefined` for any other line.
 */
export function jobOutcomeLine(line: string): string | null | undefined {
  const start = line.indexOf('{"level"')
  if (start < 0 || !/"message":"(job |last attempt)/.test(line)) return undefined
  let entry: ConsumerLogLine
  try {
    entry = JSON.parse(line.slice(start)) as ConsumerLogLine
  } catch {
    return undefined
  }
  if (!entry.message || !OUTCOMES.has(entry.message) || typeof entry.jobId !== 'string') return undefined
  if (entry.message === 'job received') return null
  const where = `${entry.jobId} on ${entry.queue ?? '?'}`
  const attempt = entry.attempt && entry.attempt > 1 ? `, attempt ${entry.attempt}` : ''
  if (entry.message !== 'job done') {
    const reason = typeof entry.error === 'string' ? entry.error : (entry.error?.message ?? 'no message')
    const next =
      entry.message === LAST_ATTEMPT
        ? `the last of ${entry.maxReceiveCount ?? 'maxReceiveCount'} receives: SQS moves it to the DLQ`
        : `retried in ${entry.retryInSeconds ?? '?'} s`
    return `[job] ${where} FAILED${attempt}: ${reason} (${next})`
  }
  const late = entry.latenessMs === undefined ? '' : `, ${entry.latenessMs} ms after its due time`
  const took = entry.durationMs === undefined ? '' : `, ran ${entry.durationMs} ms`
  return `[job] ${where} done${late}${took}${attempt} (SQS message ${entry.messageId ?? '?'})`
}
