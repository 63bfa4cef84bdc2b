// lua/flow-set.lua and lua/flow-epoch.lua: a flow control setting changed (its epoch bumped) and the epoch told to each
// shard, each write confirmed by replicas as API writes are (src/store/redis/replication.ts): a pause that answered
// survives a failover right after it.
import type { Keyspace } from '../store/keys'
import type { ReplicationOptions } from '../store/redis/replication'
import { writeScript } from '../store/redis/write'
import type { ScriptedClient } from '../store/scripts'
import { flowEpochCall } from '../store/scripts/flow-epoch'
import { decodeFlowSet, flowSetCall } from '../store/scripts/flow-set'

const NO_REPLICATION: ReplicationOptions = { replicas: 0, timeoutMs: 1_000 }

/** Writes one setting (null removes it); returns the new epoch. Throws ReplicationUnconfirmedError unconfirmed. */
export async function writeSetting(
  redis: ScriptedClient,
  keys: Keyspace,
  field: string,
  value: string | null,
  replication = NO_REPLICATION,
): Promise<string> {
  const { reply, unconfirmed } = await writeScript(redis, replication, keys.shards[0]!, flowSetCall(keys, field, value))
  if (unconfirmed) throw unconfirmed
  return decodeFlowSet(reply)
}

/** Tells every shard the epoch (never moving one back). Throws ReplicationUnconfirmedError unconfirmed. */
export async function announceEpoch(
  redis: ScriptedClient,
  keys: Keyspace,
  epoch: string,
  replication = NO_REPLICATION,
): Promise<void> {
  const written = await Promise.all(keys.shards.map((s) => writeScript(redis, replication, s, flowEpochCall(s, epoch))))
  const unconfirmed = written.find((w) => w.unconfirmed)?.unconfirmed
  if (unconfirmed) throw unconfirmed
}
