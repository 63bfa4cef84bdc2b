// Which engine object stands for a Scheduler schedule: the job (at()) or recurring schedule (cron/rate) with id
// "scheduler:<group>:<name>". Deterministic, so every operation finds it again with no lookup of its own; readable on
// the dashboard. Group and schedule names ([0-9a-zA-Z-_.], 1-64 each) fit our id alphabet; a pair too long for a
// schedule id (100 characters, room for an occurrence's "@<ms>") is named by its digest instead.
import { createHash } from 'node:crypto'
import { SCHEDULER_JOB_PREFIX } from '../sqs/raw-input'

const MAX_ID = 100

export function engineId(group: string, name: string): string {
  const readable = `${SCHEDULER_JOB_PREFIX}${group}:${name}`
  if (readable.length <= MAX_ID) return readable
  const digest = createHash('sha256').update(`${group}\n${name}`).digest('hex').slice(0, 40)
  // An empty group name cannot occur, so "scheduler::<digest>" never meets a readable id.
  return `${SCHEDULER_JOB_PREFIX}:${digest}`
}
