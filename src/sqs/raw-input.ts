// Jobs made by the Scheduler-compatible API (src/scheduler-api/) reach their queue as EventBridge Scheduler would
// deliver them: the message body is the schedule's `Input`, exactly, not our JSON envelope. Such a job is known by
// its id (a prefix our own API's users are told not to use, docs/scheduler-api.md) and its payload, a JSON string
// holding the Input text; an occurrence of such a recurring schedule carries the same prefix.

import { SCHEDULER_JOB_PREFIX } from '../contract/ids'

export { SCHEDULER_JOB_PREFIX }

/** The message body of a Scheduler-made job (its Input), or undefined for every other job (enveloped as always). */
export function rawInputBody(id: string, payloadJson: string): string | undefined {
  if (!id.startsWith(SCHEDULER_JOB_PREFIX) || payloadJson.charCodeAt(0) !== 34) return undefined
  return JSON.parse(payloadJson) as string
}
