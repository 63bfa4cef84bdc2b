// Where the Scheduler-compatible API keeps what Scheduler has and our engine does not (a schedule's name and group,
// its Target, ClientToken, dates, ActionAfterCompletion...): one JSON document per schedule and per group, in the
// queue's Redis, keyed as src/store/keys.ts says. The job or schedule that fires lives in the engine (job-id.ts).
// Writes wait for replicas as the engine's do (REDIS_WAIT_REPLICAS, src/store/redis/replicated-transaction.ts): a
// failover must not keep a schedule's job and lose its definition.
import type { Keyspace, SchedulerDocumentKeys, ShardKeys } from '../store/keys'
import {
  replicatedTransaction,
  type TransactionCommand,
  type TransactionResult,
} from '../store/redis/replicated-transaction'
import type { ReplicationOptions } from '../store/redis/replication'
import type { ScriptedClient } from '../store/scripts'
import { ScheduleLocks } from './schedule-lock'

/** How long a delete's ClientToken is remembered: far longer than the SDK's retries of one call take. */
const DELETE_TOKEN_TTL_S = 3600

export interface NamedPage<T> {
  items: T[]
  /** The last name of this page when more may follow. */
  last?: string
}

/** Documents by name in one HASH, with their names in a ZSET (lex order) beside it, in one slot. */
class NamedDocuments<T> {
  private readonly locks: ScheduleLocks

  constructor(
    private readonly redis: ScriptedClient,
    private readonly keys: SchedulerDocumentKeys,
    private readonly replication: ReplicationOptions,
    /** Whose primary's replicas REDIS_WAIT_REPLICAS=auto counts (replicated-transaction.ts). */
    private readonly shard: ShardKeys,
  ) {
    this.locks = new ScheduleLocks(redis)
  }

  /** Runs `change` as the only change of `name` under way (schedule-lock.ts). */
  hold<R>(name: string, change: () => Promise<R>): Promise<R> {
    return this.locks.hold(this.keys, name, change)
  }

  /** One MULTI/EXEC, answered once replicated as asked (else ReplicationUnconfirmedError: a 503 to retry). */
  private async write(commands: TransactionCommand[]): Promise<TransactionResult['replies']> {
    const { replies, unconfirmed } = await replicatedTransaction(this.redis, this.replication, this.shard, commands)
    if (unconfirmed) throw unconfirmed
    return replies
  }

  /** Stores `doc` unless the name is taken; answers the document that holds the name afterwards. */
  async create(name: string, doc: T): Promise<{ created: boolean; doc: T }> {
    const result = await this.write([
      ['HSETNX', this.keys.definitions, name, JSON.stringify(doc)],
      ['ZADD', this.keys.names, 0, name],
      ['HGET', this.keys.definitions, name],
    ])
    const created = result[0]?.[1] === 1
    return { created, doc: JSON.parse(result[2]?.[1] as string) as T }
  }

  async get(name: string): Promise<T | null> {
    const json = await this.redis.hget(this.keys.definitions, name)
    return json === null ? null : (JSON.parse(json) as T)
  }

  async replace(name: string, doc: T): Promise<void> {
    await this.write([
      ['HSET', this.keys.definitions, name, JSON.stringify(doc)],
      ['ZADD', this.keys.names, 0, name],
    ])
  }

  /** With the delete's ClientToken, remembers for a while what it deleted (deletedByToken). */
  async delete(name: string, clientToken?: string): Promise<boolean> {
    const commands: TransactionCommand[] = [
      ['HDEL', this.keys.definitions, name],
      ['ZREM', this.keys.names, name],
    ]
    if (clientToken) commands.push(['SET', this.keys.deletedBy(clientToken), name, 'EX', DELETE_TOKEN_TTL_S])
    const result = await this.write(commands)
    return result[0]?.[1] === 1
  }

  /** The name a delete with this ClientToken deleted (within DELETE_TOKEN_TTL_S), or null. */
  deletedByToken(clientToken: string): Promise<string | null> {
    return this.redis.get(this.keys.deletedBy(clientToken))
  }

  /** Up to `limit` documents after `after` (by name), whose names start with `prefix`. */
  async page(after: string | undefined, prefix: string, limit: number): Promise<NamedPage<T>> {
    const min = after !== undefined && after >= prefix ? `(${after}` : prefix ? `[${prefix}` : '-'
    const max = prefix ? `[${prefix}\xff` : '+'
    const names = await this.redis.zrangebylex(this.keys.names, min, max, 'LIMIT', 0, limit)
    if (names.length === 0) return { items: [] }
    const docs = await this.redis.hmget(this.keys.definitions, ...names)
    const items = docs.filter((d): d is string => d !== null).map((d) => JSON.parse(d) as T)
    return names.length < limit ? { items } : { items, last: names[names.length - 1] }
  }

  /** Every name (a group being deleted). */
  names(): Promise<string[]> {
    return this.redis.zrange(this.keys.names, '0', '-1')
  }

  async drop(): Promise<void> {
    await this.write([
      ['DEL', this.keys.definitions],
      ['DEL', this.keys.names],
    ])
  }
}

export class DefinitionStore {
  constructor(
    private readonly redis: ScriptedClient,
    private readonly keys: Keyspace,
    /** REDIS_WAIT_REPLICAS as the engine applies it (Engine.replication). */
    private readonly replication: ReplicationOptions,
  ) {}

  /** The schedules of one group. */
  schedules<T>(group: string): NamedDocuments<T> {
    return new NamedDocuments<T>(this.redis, this.keys.schedulerGroup(group), this.replication, this.keys.shards[0]!)
  }

  groups<T>(): NamedDocuments<T> {
    return new NamedDocuments<T>(this.redis, this.keys.schedulerGroups, this.replication, this.keys.shards[0]!)
  }
}
