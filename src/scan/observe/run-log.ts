// The scanners' recent metric windows, kept in Redis for the dashboard: the same figures the EMF metrics carry, so an
// operator sees dispatch lateness without AWS credentials. One short LIST, newest first, trimmed on every write.
import type { Keyspace } from '../../store/keys'
import type { ScriptedClient } from '../../store/scripts'
import type { ScanWindow } from './scan-window'

/** About 20 minutes of one scanner's 10 s windows. */
export const RUN_LOG_LENGTH = 120

export async function recordWindow(redis: ScriptedClient, keys: Keyspace, window: ScanWindow): Promise<void> {
  await redis
    .multi()
    .lpush(keys.runLogKey, JSON.stringify(window))
    .ltrim(keys.runLogKey, 0, RUN_LOG_LENGTH - 1)
    .exec()
}

/** The most recent windows, oldest first (what a chart wants). */
export async function readWindows(
  redis: ScriptedClient,
  keys: Keyspace,
  count = RUN_LOG_LENGTH,
): Promise<ScanWindow[]> {
  const raw = await redis.lrange(keys.runLogKey, 0, count - 1)
  return raw.map((line) => JSON.parse(line) as ScanWindow).reverse()
}
