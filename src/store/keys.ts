// Every Redis key the queue uses is built here, and only here.
//
// A job lives on one shard, chosen from its id; every key of a shard carries the shard's hash tag
// (`<prefix>{<shard>}:<name>`), so all keys a script touches sit in one Redis Cluster slot, and scripts receive
// every key in KEYS (never build one from strings inside Lua).
//
// Within a shard, the due index is split into many small sorted sets ("buckets", also chosen from the id) plus one
// index of buckets scored by their earliest job. Small sorted sets stay listpack-encoded (Redis's compact form,
// <= zset-max-listpack-entries = 128 members), which costs ~35 bytes per job instead of ~120 for one big sorted set:
// that is what keeps a pending job near payload + 130 bytes. Keep pending jobs per shard below ~100 x buckets.
//
// A recurring schedule lives on the shard its id hashes to, and so do all its occurrences (jobs "<scheduleId>@<ms>"
// are placed by the part before "@"): an occurrence's ack creates the next one in the same script, in one slot.
import { placementId } from '../recurrence/occurrence-id'

/** What a key prefix may be: safe inside a hash-tagged key name and in an ACL key pattern. */
export const KEY_PREFIX_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/

/** FNV-1a, 32 bit: stable across processes and languages, cheap, well spread for short ids. */
export function hashId(id: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export interface KeyLayoutOptions {
  prefix: string
  shards: number
  buckets: number
}

export class ShardKeys {
  readonly tag: string
  readonly jobs: string
  readonly index: string
  readonly inflight: string
  readonly leases: string
  readonly errors: string
  readonly dead: string
  readonly counts: string
  /** HASH schedule id -> schedule record (src/store/schedule-record.ts). */
  readonly schedules: string
  /** ZSET of schedule ids, all scored 0: listed in id order (ZRANGE BYLEX) for the cursor of GET /schedules. */
  readonly scheduleIds: string
  /** Pub/sub channel (not a key) the enqueue script publishes to when a job becomes the shard's earliest. */
  readonly wakeChannel: string
  /**
   * On-demand scan mode (src/on-demand/run/presence.ts): "a scanner is running", a string with an expiry that the
   * scanner refreshes on every shard while it runs, so that the enqueue script of any shard can read it in its own
   * slot.
   */
  readonly scannerAlive: string
  /** On-demand scan mode: "a scanner is being started", set NX with an expiry: one start at a time. */
  readonly scanStart: string
  /**
   * "This shard's primary has had a replica": set (for good) the first time one is seen. From then on, with
   * REDIS_WAIT_REPLICAS=auto, API writes are refused while the primary has none (src/store/redis/replica-watch.ts).
   */
  readonly replicated: string
  /**
   * The walks with a frontier on this shard (pendingWalk): ZSET walk -> when it was last used (ms, Redis's clock), to
   * keep the MAX_WALKS used last (src/store/pending-walk.ts).
   */
  readonly pendingWalks: string
  /**
   * HASH walk -> bytes its frontier holds: what the shard's walks reserve against their budget, in the script that
   * copies (lua/walk-start.lua), so that pages starting walks at once cannot all pass one check.
   */
  readonly pendingWalkBytes: string
  /**
   * The shard's tag index (src/store/tag-index.ts): a ZSET, all scored 0, of "<tag>\n<job id>" for each tag of each
   * stored job of this shard, listed by tag with ZRANGE BYLEX. One key per shard: the scripts that forget a job (ack,
   * cancel, replace) find its tags in its record and this key in KEYS, whatever the tags are.
   */
  readonly tags: string
  /**
   * The shard's schedule tag index: a ZSET, all scored 0, of "<tag>\n<schedule id>" for each tag of each recurring
   * schedule of this shard (GET /schedules?tag=), written by lua/schedule-put.lua and lua/schedule-delete.lua.
   */
  readonly scheduleTags: string
  /**
   * Flow control (docs/flow-control.md): a STRING naming the version of the flow settings, written on every shard by
   * each change, so a claim (lua/claim.lua) tells its scanner in its own slot when to read the settings again.
   */
  readonly flowEpoch: string
  /**
   * Flow control: a HASH rate name -> the theoretical arrival times (ms) of this shard's own buckets of that rate and
   * the rate ("<ms> <ms> <rate>/<burst>/<key rate>": lua/includes/flowPace.lua), by which a claim holds a burst's jobs beyond the rate (lua/includes/flowPace.lua);
   * expires once no name holds a debt.
   */
  readonly flowPace: string

  constructor(
    prefix: string,
    readonly shard: number,
  ) {
    this.tag = `${prefix}{${shard}}`
    this.jobs = `${this.tag}:jobs`
    this.index = `${this.tag}:index`
    this.inflight = `${this.tag}:inflight`
    this.leases = `${this.tag}:leases`
    this.errors = `${this.tag}:errors`
    this.dead = `${this.tag}:dead`
    this.counts = `${this.tag}:counts`
    this.schedules = `${this.tag}:schedules`
    this.scheduleIds = `${this.tag}:schedule-ids`
    this.wakeChannel = `${this.tag}:wake`
    this.scannerAlive = `${this.tag}:scanner`
    this.scanStart = `${this.tag}:scan-start`
    this.replicated = `${this.tag}:replicated`
    this.pendingWalks = `${this.tag}:walks`
    this.pendingWalkBytes = `${this.tag}:walk-bytes`
    this.tags = `${this.tag}:tags`
    this.scheduleTags = `${this.tag}:schedule-tags`
    this.flowEpoch = `${this.tag}:flow-epoch`
    this.flowPace = `${this.tag}:flow-pace`
  }

  /**
   * Flow control: the jobs of this shard held for a pause of `name` ("q:<queue>" or "k:<flow key>"), a ZSET id -> the
   * job's place in due order (ms), so a resume finds them and puts them back in that order (lua/flow-hold.lua).
   */
  held(name: string): string {
    return `${this.tag}:held:${name}`
  }

  /**
   * Flow control: the token bucket of a rate-limited flow name ("q:<queue>" or "k:<flow key>"): a STRING, its
   * theoretical arrival time (ms), the send times it gave held jobs (a ZSET id -> ms), and the bucket of the jobs let
   * go (a STRING, its theoretical arrival time), on the shard the name hashes to (Keyspace.rateShard; lua/flow-take.lua).
   */
  rateBucket(name: string): { tat: string; slots: string; sent: string } {
    return {
      tat: `${this.tag}:rate:${name}`,
      slots: `${this.tag}:rate-slots:${name}`,
      sent: `${this.tag}:rate-sent:${name}`,
    }
  }

  bucket(bucketNo: number | string): string {
    return `${this.tag}:due:${bucketNo}`
  }

  /**
   * A walk through the pending list page by page (src/store/pending-walk.ts): a ZSET bucket number -> a lower bound of
   * that bucket's next job after the walk's position, which it holds in `pendingWalkAt` (a STRING
   * "<page token>|<due ms>:<id>", the token naming the page that wrote it); both expire.
   */
  pendingWalk(walk: string): string {
    return `${this.tag}:walk:${walk}`
  }

  pendingWalkAt(walk: string): string {
    return `${this.tag}:walk:${walk}:at`
  }

  /**
   * Dispatch receipts of the jobs acked during one hour (`hour` = epoch ms / RECEIPT_HOUR_MS), in one of
   * RECEIPT_SLOTS hashes: a HASH id -> receipt (src/store/receipt.ts) that expires whole, a retention after its hour.
   */
  receipts(hour: number, slot: number): string {
    return `${this.tag}:receipts:${hour}:${slot}`
  }

  /** The HTTP forwarder's outcome for a job of an HTTP target queue (src/store/delivery-record.ts): expiring JSON. */
  delivery(id: string): string {
    return `${this.tag}:delivery:${id}`
  }
}

/** Receipts are kept in hourly hashes: they expire in bulk, an hour's worth at a time. */
export const RECEIPT_HOUR_MS = 3_600_000

/**
 * Each shard's hour of receipts is split over this many hashes (by id). Redis keeps a hash of up to 512 short fields
 * (hash-max-listpack-entries) as one listpack, ~70 bytes per receipt with a 20-character id, where a larger one costs
 * ~140 (a table entry per field): 1024 hashes stay compact up to ~400,000 receipts per shard and hour, and cost ~270
 * bytes each (docs/sizing.md).
 */
export const RECEIPT_SLOTS = 1024

/** The hash among a shard-hour's RECEIPT_SLOTS that holds this job id's receipt. */
export function receiptSlot(id: string): number {
  return Math.floor(hashId(id) / 7) % RECEIPT_SLOTS
}

/**
 * The Scheduler-compatible API's keys for one kind of document (a group's schedules, or the groups): the HASH and the
 * ZSET of names, per delete that sent a ClientToken a STRING (the name it deleted, expiring) so that the same
 * delete sent again answers as the first did, and per document being changed a lock (one change at a time).
 */
export interface SchedulerDocumentKeys {
  definitions: string
  names: string
  deletedBy(clientToken: string): string
  /** STRING, expiring: the token of the change under way of the document of that name (schedule-lock.ts). */
  lock(name: string): string
}

function schedulerDocumentKeys(tag: string, definitions: string, names: string): SchedulerDocumentKeys {
  return {
    definitions: `${tag}:${definitions}`,
    names: `${tag}:${names}`,
    deletedBy: (clientToken) => `${tag}:${definitions}-deleted-by:${clientToken}`,
    lock: (name) => `${tag}:${definitions}-lock:${name}`,
  }
}

export interface JobLocation {
  shard: ShardKeys
  bucketNo: number
  bucket: string
}

export class Keyspace {
  readonly shards: readonly ShardKeys[]
  /** Where the layout is recorded (src/store/layout.ts): one small key, under shard 0's hash tag like every key. */
  readonly layoutKey: string
  /** The layout as recorded: "shards=N;buckets=B". */
  readonly layout: string
  /** The scanners' recent metric windows (src/scan/observe/run-log.ts), for the dashboard: a short LIST, newest first. */
  readonly runLogKey: string
  /** Which scan invocation runs now: the newest writes its name, older ones stop when they read it (src/scan/run/relay.ts). */
  readonly scanRelayKey: string
  /** The key that signs the cursors of GET /jobs (src/store/cursor-key.ts): a STRING of 32 random bytes, base64. */
  readonly cursorKey: string
  /**
   * Flow control's settings (src/flow/flow-settings.ts): a HASH "p:<name>" -> "1" (paused), "r:<name>" ->
   * "<rate>/<burst>", names "q:<queue>" or "k:<flow key>"; and "epoch" -> the version every shard's flowEpoch names.
   */
  readonly flowSettingsKey: string

  constructor(readonly options: KeyLayoutOptions) {
    if (!KEY_PREFIX_PATTERN.test(options.prefix)) throw new RangeError(`bad key prefix: ${options.prefix}`)
    if (!Number.isInteger(options.shards) || options.shards < 1) throw new RangeError('shards must be >= 1')
    if (!Number.isInteger(options.buckets) || options.buckets < 1) throw new RangeError('buckets must be >= 1')
    this.shards = Array.from({ length: options.shards }, (_, i) => new ShardKeys(options.prefix, i))
    this.layoutKey = `${this.shards[0]!.tag}:layout`
    this.layout = `shards=${options.shards};buckets=${options.buckets}`
    this.runLogKey = `${this.shards[0]!.tag}:runs`
    this.scanRelayKey = `${this.shards[0]!.tag}:scan-relay`
    this.cursorKey = `${this.shards[0]!.tag}:cursor-key`
    this.flowSettingsKey = `${this.shards[0]!.tag}:flow`
  }

  /** The shard that holds a flow name's token bucket: the name's hash spreads buckets over a Cluster's masters. */
  rateShard(name: string): ShardKeys {
    return this.shards[hashId(`flow:${name}`) % this.options.shards]!
  }

  /**
   * The Scheduler-compatible API (src/scheduler-api/definition-store.ts): one schedule group's Scheduler definitions
   * (HASH name -> JSON) and their names (ZSET, all scored 0: listed by name), under the group's own hash tag so that
   * both sit in one Cluster slot. The jobs and schedules those definitions stand for live on the shards as any other.
   */
  schedulerGroup(group: string): SchedulerDocumentKeys {
    return schedulerDocumentKeys(`${this.options.prefix}{scheduler:${group}}`, 'definitions', 'names')
  }

  /** The Scheduler-compatible API's schedule groups: HASH name -> JSON and ZSET of names, under shard 0's tag. */
  get schedulerGroups(): SchedulerDocumentKeys {
    return schedulerDocumentKeys(this.shards[0]!.tag, 'scheduler-groups', 'scheduler-group-names')
  }

  /**
   * A caller's count of deep pages of GET /jobs in the current minute (src/store/deep-page-rate.ts): a STRING counter
   * that expires with its window. `caller` is a digest of the caller's identity (hex), never the identity itself.
   */
  deepPages(caller: string): string {
    return `${this.shards[0]!.tag}:deep-pages:${caller}`
  }

  /**
   * Where a job (or a schedule) lives: its shard and its due bucket. A schedule's occurrences share its shard and
   * bucket. Other shard or bucket counts re-home ids: src/store/layout.ts.
   */
  locate(id: string): JobLocation {
    const h = hashId(placementId(id))
    const shard = this.shards[h % this.options.shards]!
    const bucketNo = Math.floor(h / this.options.shards) % this.options.buckets
    return { shard, bucketNo, bucket: shard.bucket(bucketNo) }
  }
}
