// One change of a schedule at a time. A change writes two places, its definition and its engine job or recurring
// schedule (schedules.ts); two changes of one schedule running side by side could each win one of them (update A
// arms its job, update B arms and stores, A stores: the definition says A, the job fires B). A lock per schedule
// name, in Redis because the API runs in many Lambdas at once, makes them take turns. A change that waits longer than
// a change takes is answered ConflictException, as AWS answers a change that meets another.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { SchedulerDocumentKeys } from '../store/keys'
import { runScript, type ScriptedClient } from '../store/scripts'
import { lockReleaseCall } from '../store/scripts/scheduler-lock-release'
import { SchedulerConflictError } from './errors'

/** Longer than any change holds it (a few writes of at most REDIS_WAIT_TIMEOUT_MS each); a crashed holder's lapses. */
const LOCK_TTL_MS = 15_000
/** How long a change waits for the one under way before it is answered ConflictException. */
const WAIT_MS = 2_000
const FIRST_PAUSE_MS = 5
const LONGEST_PAUSE_MS = 100

export class ScheduleLocks {
  constructor(private readonly redis: ScriptedClient) {}

  /** Runs `change` holding the lock of `name` in the group whose keys are `keys`. */
  async hold<T>(keys: SchedulerDocumentKeys, name: string, change: () => Promise<T>): Promise<T> {
    const lock = keys.lock(name)
    const token = randomUUID()
    const giveUpAt = Date.now() + WAIT_MS
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      if ((await this.redis.set(lock, token, 'PX', LOCK_TTL_MS, 'NX')) === 'OK') break
      if (Date.now() >= giveUpAt) {
        throw new SchedulerConflictError(`Another change of schedule ${name} is under way: try again.`)
      }
      await sleep(pause)
    }
    try {
      return await change()
    } finally {
      // A release that fails leaves the lock to lapse (LOCK_TTL_MS): the change itself is done.
      await runScript(this.redis, lockReleaseCall(lock, token)).catch(() => undefined)
    }
  }
}
