// REDIS_WAIT_REPLICAS=auto, the default: an API write waits for one replica (WAIT 1) whenever its shard's primary has
// a replica online. A team that deploys with a replica (ElastiCache Multi-AZ, Sentinel) gets writes that survive a
// failover without setting anything, and a single node (the local stack, a cache.t4g.micro) keeps working.
//
// What each primary has is read with INFO replication (its `slaveN:...,state=online` lines) and kept for a few
// seconds. The read goes in a pipeline with a key of the shard, so a Redis Cluster sends it to the shard's own master.
// Where INFO is refused (an ACL without it, a managed service's restricted list), WAIT itself tells: `WAIT 1` for up
// to WAIT_PROBE_MS (REDIS_WAIT_TIMEOUT_MS where the store is marked replicated, below) answers 1 as soon as a replica
// online acknowledges (the primary asks its replicas at once), 0 when none does. Reading "refused" as "no replica" made
// a replicated store refuse every write while its replica was online. Where WAIT is refused too, writes are answered
// unreplicated (they could not wait for a replica anyway), with one error in the log.
//
// Why a marker. "No replica online" means two different things: a single node that never had one, and a replicated
// store whose replica is gone right now (a network blip, a replica restarting, a failover under way). Answering
// writes unreplicated in the second case is exactly what loses them: the primary dies before its replica is back,
// and the replica promoted never saw them. So the first time a shard's primary is seen with a replica, a key says so
// (`replicated`, written once, replicated itself, kept across failovers). From then on a shard without a replica
// online refuses API writes with a 503 before writing anything (NoReplicaError: nothing stored, retry), until a
// replica is back. A shard that never had one is written unreplicated, with one warning in the log. An operator who
// removes the replicas for good deletes the markers (docs/operations.md) or sets REDIS_WAIT_REPLICAS=0.
import { NoReplicaError } from '../../errors'
import type { Log } from '../../logger'
import type { Keyspace, ShardKeys } from '../keys'
import type { RedisClient } from '../scripts'
import type { ReplicationOptions } from './replication'

/** Replicas a write on `shard` must wait for now (auto: throws NoReplicaError while a replicated shard has none). */
export async function requiredReplicas(options: ReplicationOptions, shard: ShardKeys): Promise<number> {
  if (options.replicas !== 'auto') return options.replicas
  if (!options.watch) throw new Error("REDIS_WAIT_REPLICAS=auto needs the client's replica watch")
  return options.watch.required(shard)
}

/** How long a primary's replica count is trusted. A replica that appears is waited for within this long. */
export const REPLICA_REFRESH_MS = 5_000

/**
 * Longest WAIT that asks whether a replica is online where INFO is refused. A live replica answers within
 * milliseconds; without one, a write waits this long once per REPLICA_REFRESH_MS (never longer than the write's own
 * REDIS_WAIT_TIMEOUT_MS).
 */
export const WAIT_PROBE_MS = 200

/** Replies of a Redis that does not let us run INFO (a managed service's restricted list, an ACL without it). */
const INFO_REFUSED = /^(NOPERM|ERR unknown command|ERR unknown subcommand|ERR .*(not allowed|disabled|restricted))/i

interface Seen {
  online: number
  /** The shard's `replicated` marker exists. */
  replicated: boolean
  /** INFO and WAIT refused: nothing is known (said in the log once). */
  unknown?: true
  at: number
}

export class ReplicaWatch {
  private readonly seen = new Map<ShardKeys, Seen>()
  private readonly looking = new Map<ShardKeys, Promise<Seen>>()
  private warnedUnreplicated = false
  private infoRefusedLogged = false
  private waitRefusedLogged = false
  /** What the last WAIT probe answered (INFO refused). */
  private probed: number | undefined

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    private readonly log: Log,
    /** REDIS_WAIT_TIMEOUT_MS: a probe by WAIT never waits longer than a write would. */
    private readonly waitTimeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {
    // A new connection may be to another primary (a Sentinel failover, a Cluster promotion): look again.
    redis.on('ready', () => this.seen.clear())
    redis.on('+node', () => this.seen.clear())
  }

  /**
   * Replicas a write on `shard` waits for: 1 when its primary has one online, 0 when it never had one. Throws
   * NoReplicaError when it had one and has none now: the write must not happen.
   */
  async required(shard: ShardKeys): Promise<number> {
    const cached = this.seen.get(shard)
    const seen = cached && this.now() - cached.at < REPLICA_REFRESH_MS ? cached : await this.look(shard)
    if (seen.online > 0) return 1
    if (seen.unknown) return 0
    if (seen.replicated) throw new NoReplicaError()
    if (!this.warnedUnreplicated) {
      this.warnedUnreplicated = true
      this.log.warn(
        'Redis primary has never had a replica: API writes are answered without replication (REDIS_WAIT_REPLICAS=' +
          'auto), and a failover would lose them. Add a replica (they then wait for it), or set REDIS_WAIT_REPLICAS=0 ' +
          'to say that none is wanted.',
        { shardKey: shard.tag },
      )
    }
    return 0
  }

  /** A write's WAIT was not satisfied: its replica may be gone, so the next write looks again. */
  forget(shard: ShardKeys): void {
    for (const s of this.samePrimary(shard)) this.seen.delete(s)
  }

  private look(shard: ShardKeys): Promise<Seen> {
    let looking = this.looking.get(shard)
    if (!looking) {
      looking = this.readShard(shard).finally(() => this.looking.delete(shard))
      this.looking.set(shard, looking)
    }
    return looking
  }

  /**
   * The shards on the same primary as `shard`: on a Cluster each shard's own master, elsewhere one primary holds
   * them all, and a replica seen through any shard marks them all (a store whose replica dies before some shard had
   * a write is still a replicated store).
   */
  private samePrimary(shard: ShardKeys): readonly ShardKeys[] {
    return (this.redis as { isCluster?: boolean }).isCluster ? [shard] : this.keys.shards
  }

  private async readShard(shard: ShardKeys): Promise<Seen> {
    const group = this.samePrimary(shard)
    const markers = group.map((s) => s.replicated)
    const replies =
      (await this.redis
        .pipeline()
        .exists(...markers)
        .info('replication')
        .exec()) ?? []
    const [[markerError, marked], [infoError, info]] = [replies[0] ?? [null, 0], replies[1] ?? [null, '']]
    if (markerError) throw markerError
    let online: number | null
    if (!infoError) online = onlineReplicas(String(info))
    else if (INFO_REFUSED.test(infoError.message)) online = await this.waitProbe(shard, infoError, Number(marked) > 0)
    else throw infoError
    if (online === null) {
      // Neither INFO nor WAIT: no write can wait for a replica, so none is refused for want of one (the marker
      // would refuse every write for good); they are answered unreplicated, as the log says.
      const unknown: Seen = { online: 0, replicated: false, unknown: true, at: this.now() }
      for (const s of group) this.seen.set(s, unknown)
      return unknown
    }
    let replicated = Number(marked) > 0
    if (online > 0 && Number(marked) < markers.length) {
      await this.redis.mset(...markers.flatMap((key) => [key, '1']))
      replicated = true
    }
    const seen = { online, replicated, at: this.now() }
    // A refusal is not kept: every write looks again while it lasts, so a replica that is back is used at once.
    if (online > 0 || !replicated) for (const s of group) this.seen.set(s, seen)
    return seen
  }

  /**
   * INFO refused: 1 when a replica online acknowledges a WAIT within WAIT_PROBE_MS, 0 when none does; null when WAIT
   * is refused too. A store marked replicated waits as long as a write would (REDIS_WAIT_TIMEOUT_MS): a replica
   * online but a few hundred ms behind would otherwise read as none, and every write be refused until the next look.
   */
  private async waitProbe(shard: ShardKeys, refusal: Error, replicated: boolean): Promise<number | null> {
    const probeMs = replicated ? this.waitTimeoutMs : Math.min(WAIT_PROBE_MS, this.waitTimeoutMs)
    if (!this.infoRefusedLogged) {
      this.infoRefusedLogged = true
      this.log.warn(
        `REDIS_WAIT_REPLICAS=auto: INFO replication was refused (${refusal.message}), so whether the Redis primary ` +
          `has a replica online is asked with WAIT 1 (up to ${probeMs} ms, every ${REPLICA_REFRESH_MS / 1000} s): ` +
          'writes wait for a replica when one answers, as with INFO. Set REDIS_WAIT_REPLICAS=1 if the store always ' +
          'has a replica, or 0 if it has none or replicates by itself, to skip the probe.',
      )
    }
    // In a pipeline with a key of the shard: a Redis Cluster sends the WAIT to the shard's own master.
    const replies = (await this.redis.pipeline().exists(shard.replicated).wait(1, probeMs).exec()) ?? []
    const [waitError, acked] = replies[1] ?? [new Error('no reply'), 0]
    if (waitError && INFO_REFUSED.test(waitError.message)) return this.waitRefused(waitError)
    if (waitError) throw waitError
    const online = Number(acked)
    // Said when the answer changes, not on every probe.
    if (online === this.probed) return online
    this.probed = online
    this.log.info(
      online > 0
        ? 'REDIS_WAIT_REPLICAS=auto: a replica acknowledged WAIT: API writes wait for one.'
        : `REDIS_WAIT_REPLICAS=auto: no replica acknowledged WAIT within ${probeMs} ms.`,
      { shardKey: shard.tag },
    )
    return online
  }

  /** WAIT refused as well as INFO: nothing tells whether a replica is online, and no write can wait for one. */
  private waitRefused(error: Error): null {
    if (!this.waitRefusedLogged) {
      this.waitRefusedLogged = true
      this.log.error(
        'REDIS_WAIT_REPLICAS=auto cannot tell whether the Redis primary has a replica: INFO replication and WAIT were ' +
          `refused (${error.message}). Writes are answered without waiting for one. Set REDIS_WAIT_REPLICAS=1 if the ` +
          'store has a replica (writes then need WAIT), or 0 if it has none or replicates by itself.',
      )
    }
    return null
  }
}

/** Replicas the primary streams to now (`state=online`), from INFO replication's text. */
export function onlineReplicas(info: string): number {
  return info.split(/\r?\n/).filter((line) => /^slave\d+:.*\bstate=online\b/.test(line)).length
}

const watches = new WeakMap<RedisClient, ReplicaWatch>()

/** The one watch of a client: the job and schedule stores over the same connection share what it has seen. */
export function replicaWatchOf(redis: RedisClient, keys: Keyspace, log: Log, waitTimeoutMs: number): ReplicaWatch {
  let watch = watches.get(redis)
  if (!watch) {
    watch = new ReplicaWatch(redis, keys, log, waitTimeoutMs)
    watches.set(redis, watch)
  }
  return watch
}
