// The one write wrapper of the stores: a script write, ridden out while Redis refuses it unrun (src/store/redis/
// ride-out.ts), confirmed by WAIT when replicas are asked for (src/store/redis/replication.ts), its failures read as
// the store's conditions (src/store/redis/redis-errors.ts). Each store calls it once per write; nothing around it
// wraps the write again.
import type { ReplicationUnconfirmedError } from '../../errors'
import type { ShardKeys } from '../keys'
import { runScript, type ScriptCall, type ScriptedClient } from '../scripts'
import { storeError } from './redis-errors'
import { replicasNow, replicatedWrites, type ReplicationOptions } from './replication'
import { rideOut } from './ride-out'

/** A write's reply, and whether fewer replicas than asked confirmed it. */
export interface Written<R> {
  reply: R
  unconfirmed?: ReplicationUnconfirmedError
}

/**
 * One script write (enqueue, cancel, a schedule's put or delete), followed by WAIT when replicas are asked for. The
 * caller throws `unconfirmed` once the reply shows the script wrote something (a refusal such as 409 wrote nothing).
 */
export async function writeScript<R>(
  redis: ScriptedClient,
  options: ReplicationOptions,
  shard: ShardKeys,
  call: ScriptCall<R>,
): Promise<Written<R>> {
  try {
    // No replica to wait for (0, or auto on a primary that never had one): the script alone, no pipeline around it.
    const required = options.replicas === 0 ? 0 : await replicasNow(redis, options, shard)
    if (required > 0) {
      const { replies, unconfirmed } = await replicatedWrites(redis, options, shard, [call], required)
      const [err, reply] = replies[0] ?? [new Error('no reply'), null]
      if (err) throw err
      return { reply: reply as R, unconfirmed: unconfirmed[0] }
    }
    return { reply: await rideOut(redis, () => runScript(redis, call), options.rideOutMs) }
  } catch (e) {
    // every failure of the write, whichever step threw it, read once as the store's condition
    throw storeError(e)
  }
}
