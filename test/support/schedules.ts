// Helpers for recurring-schedule tests: a DelayQueue over a test store, and the occurrences a store holds.
import { DelayQueue } from '../../src/direct/delay-queue'
import type { Config } from '../../src/config'
import type { testStore } from './engine'

type TestStore = ReturnType<typeof testStore>

/** A DelayQueue over the test store (one redis-server or the cluster), with these target queues. */
export function testQueue(t: TestStore, queues: Record<string, string> = { orders: 'http://127.0.0.1:9/q/orders' }) {
  const config = { queues, maxMessageBytes: 262_144, maxHorizonMs: 400 * 86_400_000 } as Config
  return new DelayQueue({ config, store: t.store })
}

/** Every pending job id of the store that names an occurrence of `scheduleId`, sorted. */
export async function occurrencesOf(t: TestStore, scheduleId: string): Promise<string[]> {
  const ids = await Promise.all(t.keys.shards.map((s) => t.redis.hkeys(s.jobs)))
  return ids
    .flat()
    .filter((id) => id.startsWith(`${scheduleId}@`))
    .sort()
}
