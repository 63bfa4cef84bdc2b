// The enqueue-time check of a job on an HTTP target queue (src/direct/validation.ts calls it for every job): its
// payload must be a request the forwarder can make, so a bad URL is a 400 now, not a DLQ message days later.
import type { HttpTargets } from './target-settings'
import { checkHttpRequest } from './request-spec'

export function checkHttpJob(
  queue: string,
  payload: unknown,
  targets: HttpTargets | undefined,
  fail: (path: string, message: string) => void,
): void {
  if (!targets || !Object.hasOwn(targets.queues, queue)) return
  checkHttpRequest(payload, targets.queues[queue]!, { httpsOnly: !targets.local }, fail)
}
