// REDIS_WAIT_REPLICAS unset (auto, the default): writes wait for a replica whenever the primary has one, a single node
// works without one (one warning), and a store that has had a replica refuses writes while it has none, rather than
// acknowledge what a failover would lose. Real parts: a primary and a replica (redis-server --replicaof) on loopback.
import { sleep } from '../../devkit/sleep'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { startRedis, type LocalRedis } from '../../local/redis-server'
import { NoReplicaError, ReplicationUnconfirmedError } from '../../src/errors'
import type { Log } from '../../src/logger'
import { createEngine, type Engine } from '../../src/store/engine'
import { onlineReplicas } from '../../src/store/redis/replica-watch'
import { bodyOf, request, testApi, testConfig } from '../api/api-helpers'
import { eventually } from '../support/eventually'
import { job, uniquePrefix } from '../support/engine'

interface Logged {
  level: string
  message: string
}

function recordingLog(): Log & { lines: Logged[] } {
  const lines: Logged[] = []
  const push = (level: string) => (message: string) => void lines.push({ level, message })
  return { lines, info: push('info'), warn: push('warn'), error: push('error') }
}

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined)
})

// A live replica on loopback confirms a write within milliseconds; the timeout only ends the waits on a replica that
// is stopped or frozen. 300 ms was too short for a live one beside the suite's other files (a CI run: the first write
// of "refuses writes ..." unconfirmed), so it allows 2 s: the two waits meant to time out take that long.
function engineOn(url: string, log: Log, env: Record<string, string> = {}): Engine {
  const engine = createEngine(
    testConfig({ REDIS_URL: url, KEY_PREFIX: uniquePrefix('auto'), REDIS_WAIT_TIMEOUT_MS: '2000', ...env }),
    { logger: log, commandTimeoutMs: 5_000 },
  )
  engine.redis.on('error', () => undefined)
  cleanup.push(() => engine.close())
  return engine
}

async function replicaOf(primary: LocalRedis): Promise<LocalRedis> {
  const replica = await startRedis({ extraArgs: ['--replicaof', '127.0.0.1', String(primary.port)] })
  cleanup.push(() => replica.stop())
  const probe = new Redis(primary.url)
  try {
    await eventually(async () => onlineReplicas(String(await probe.info('replication'))) > 0, 10_000)
  } finally {
    probe.disconnect()
  }
  return replica
}

describe('REDIS_WAIT_REPLICAS=auto (the default)', () => {
  let primary: LocalRedis
  beforeAll(async () => {
    primary = await startRedis()
  })
  afterAll(async () => {
    await primary?.stop()
  })

  it('answers writes on a single node that never had a replica, with one warning saying so', async () => {
    // prepare
    const log = recordingLog()
    const engine = engineOn(inject('redisUrl'), log)
    // act
    await engine.store.enqueue(job({ id: 'single-1' }))
    await engine.store.enqueueMany([job({ id: 'single-2' }), job({ id: 'single-3' })])
    await engine.store.cancel('single-1')
    // assess
    expect(engine.config.redis.waitReplicas).toBe('auto')
    expect(await engine.store.get('single-2')).not.toBeNull()
    const warnings = log.lines.filter((l) => l.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toMatch(/never had a replica.*REDIS_WAIT_REPLICAS=0/)
  })

  it('waits for the replica when the primary has one: an acknowledged write is on the replica', async () => {
    // prepare
    const replica = await replicaOf(primary)
    const engine = engineOn(primary.url, recordingLog())
    const direct = new Redis(replica.url)
    cleanup.push(async () => direct.disconnect())
    // act
    await engine.store.enqueue(job({ id: 'repl-1' }))
    await engine.store.enqueueMany([job({ id: 'repl-2' })])
    // assess: WAIT 1 returned before the answer, so the replica has both already
    expect(await direct.hexists(engine.keys.locate('repl-1').shard.jobs, 'repl-1')).toBe(1)
    expect(await direct.hexists(engine.keys.locate('repl-2').shard.jobs, 'repl-2')).toBe(1)
    expect(await direct.exists(engine.keys.locate('repl-1').shard.replicated)).toBe(1)
  })

  it('never calls a write a success while the replica does not confirm it (frozen replica)', async () => {
    // prepare
    const replica = await replicaOf(primary)
    const engine = engineOn(primary.url, recordingLog())
    await engine.store.enqueue(job({ id: 'frozen-0' }))
    // act
    replica.process.kill('SIGSTOP')
    const outcome = await engine.store.enqueue(job({ id: 'frozen-1' })).catch((e: unknown) => e)
    replica.process.kill('SIGCONT')
    // assess
    expect(outcome).toBeInstanceOf(ReplicationUnconfirmedError)
  })

  it('refuses writes (503, nothing stored) while a store that had a replica has none, and resumes when one is back', async () => {
    // prepare: the replica is seen once, then it dies
    const replica = await replicaOf(primary)
    const log = recordingLog()
    const engine = engineOn(primary.url, log)
    const api = testApi({}, engine)
    await engine.store.enqueue(job({ id: 'gone-0' }))
    await replica.stop()
    // act: the first write still counts on the replica it saw (unconfirmed: it reached the primary, no success);
    // that failure makes the store look again, and the writes after it are refused before anything is written
    const unconfirmed = await engine.store.enqueue(job({ id: 'gone-1' })).catch((e: unknown) => e)
    const batch = await engine.store.enqueueMany([job({ id: 'gone-2' }), job({ id: 'gone-3' })])
    const cancel = await engine.store.cancel('gone-0').catch((e: unknown) => e)
    const answer = await api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1, id: 'gone-4' } }))
    await replicaOf(primary)
    const resumed = await engine.store.enqueue(job({ id: 'gone-5' }))
    // assess
    expect(unconfirmed).toBeInstanceOf(ReplicationUnconfirmedError)
    expect(batch.every((r) => r instanceof NoReplicaError)).toBe(true)
    expect(cancel).toBeInstanceOf(NoReplicaError)
    expect(answer.statusCode).toBe(503)
    expect(bodyOf(answer).error).toMatchObject({ code: 'ServiceUnavailable', message: /no replica online/ })
    for (const id of ['gone-2', 'gone-3', 'gone-4']) expect(await engine.store.get(id)).toBeNull()
    expect(await engine.store.get('gone-0')).not.toBeNull()
    expect(resumed.status).toBe('created')
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([])
  })

  it('decides with WAIT where INFO is not allowed: a replicated store with its replica online takes writes, and they are on the replica', async () => {
    // prepare: a store seen with its replica by a user with INFO (its marker set), and a user that may do everything
    // but INFO (a managed service's restricted command list) on the same keys
    const replica = await replicaOf(primary)
    const admin = new Redis(primary.url)
    const direct = new Redis(replica.url)
    cleanup.push(
      async () => admin.disconnect(),
      async () => direct.disconnect(),
    )
    await admin.call('ACL', 'SETUSER', 'noinfo', 'on', '>pw', '~*', '&*', '+@all', '-info')
    const prefix = uniquePrefix('noinfo')
    await engineOn(primary.url, recordingLog(), { KEY_PREFIX: prefix }).store.enqueue(job({ id: 'noinfo-0' }))
    const log = recordingLog()
    const engine = engineOn(`redis://noinfo:pw@127.0.0.1:${primary.port}`, log, { KEY_PREFIX: prefix })
    // act
    const created = await engine.store.enqueue(job({ id: 'noinfo-1' }))
    const batch = await engine.store.enqueueMany([job({ id: 'noinfo-2' })])
    // assess: answered, and on the replica when answered (they waited for it); the log says how it was decided, and
    // nothing about writes going unreplicated
    expect(created.status).toBe('created')
    expect(batch.every((r) => !(r instanceof Error))).toBe(true)
    expect(await direct.hexists(engine.keys.locate('noinfo-1').shard.jobs, 'noinfo-1')).toBe(1)
    expect(await direct.hexists(engine.keys.locate('noinfo-2').shard.jobs, 'noinfo-2')).toBe(1)
    const said = log.lines.map((l) => l.message).join('\n')
    expect(said).toMatch(/INFO replication was refused.*asked with WAIT 1/)
    expect(said).toMatch(/a replica acknowledged WAIT: API writes wait for one/)
    expect(said).not.toMatch(/without waiting|without replication|never had a replica/)
    expect(log.lines.filter((l) => l.level === 'error')).toEqual([])
    await replica.stop()
  })

  it('decides with WAIT where INFO is not allowed: a single node is written unreplicated, and the log says so', async () => {
    // prepare: the same user, on a primary without a replica, with keys that never had one
    const admin = new Redis(primary.url)
    cleanup.push(async () => admin.disconnect())
    await admin.call('ACL', 'SETUSER', 'noinfo', 'on', '>pw', '~*', '&*', '+@all', '-info')
    const log = recordingLog()
    const engine = engineOn(`redis://noinfo:pw@127.0.0.1:${primary.port}`, log, {
      KEY_PREFIX: uniquePrefix('noinfo'),
    })
    // act
    const created = await engine.store.enqueue(job({ id: 'noinfo-single-1' }))
    // assess
    expect(created.status).toBe('created')
    const said = log.lines.map((l) => l.message).join('\n')
    expect(said).toMatch(/INFO replication was refused.*REDIS_WAIT_REPLICAS=1.*or 0/)
    expect(said).toMatch(/no replica acknowledged WAIT within 200 ms/)
    expect(said).toMatch(/never had a replica: API writes are answered without replication/)
  })

  it('answers writes unreplicated where INFO and WAIT are both refused, marked replicated or not, and the log says so', async () => {
    // prepare: a user that may do everything but INFO and WAIT; keys marked replicated (a store that had a replica)
    const admin = new Redis(primary.url)
    cleanup.push(async () => admin.disconnect())
    await admin.call('ACL', 'SETUSER', 'nowait', 'on', '>pw', '~*', '&*', '+@all', '-info', '-wait')
    const log = recordingLog()
    const engine = engineOn(`redis://nowait:pw@127.0.0.1:${primary.port}`, log, { KEY_PREFIX: uniquePrefix('nowait') })
    await admin.mset(...engine.keys.shards.flatMap((s) => [s.replicated, '1']))
    // act
    const created = await engine.store.enqueue(job({ id: 'nowait-1' }))
    const batch = await engine.store.enqueueMany([job({ id: 'nowait-2' })])
    // assess: both answered (no 500, no 503), one error in the log saying what happens
    expect(created.status).toBe('created')
    expect(batch.every((r) => !(r instanceof Error))).toBe(true)
    const errors = log.lines.filter((l) => l.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toMatch(/INFO replication and WAIT were refused.*answered without waiting/)
  })

  it('waits as long as a write would for a replica of a replicated store where INFO is refused (a replica 300 ms behind)', async () => {
    // prepare: a store seen with its replica (marker set); a user without INFO; the replica frozen
    const replica = await replicaOf(primary)
    const admin = new Redis(primary.url)
    cleanup.push(async () => admin.disconnect())
    await admin.call('ACL', 'SETUSER', 'noinfo', 'on', '>pw', '~*', '&*', '+@all', '-info')
    const prefix = uniquePrefix('behind')
    await engineOn(primary.url, recordingLog(), { KEY_PREFIX: prefix }).store.enqueue(job({ id: 'behind-0' }))
    const engine = engineOn(`redis://noinfo:pw@127.0.0.1:${primary.port}`, recordingLog(), { KEY_PREFIX: prefix })
    replica.process.kill('SIGSTOP')
    cleanup.push(async () => replica.process.kill('SIGCONT'))
    // act: a write, whose probe waits on the frozen replica; the replica resumes 300 ms after the probe began
    const outcome = engine.store.enqueue(job({ id: 'behind-1' })).catch((e: unknown) => e)
    await eventually(async () => /cmd=wait/.test(String(await admin.call('CLIENT', 'LIST'))), 5_000)
    await sleep(300)
    replica.process.kill('SIGCONT')
    // assess: the write waited for the replica and is on it
    const answered = await outcome
    expect(answered).not.toBeInstanceOf(Error)
    expect((answered as { status: string }).status).toBe('created')
  })

  it('counts only replicas streaming now (state=online) in INFO replication', () => {
    const info = [
      '# Replication',
      'role:master',
      'connected_slaves:2',
      'slave0:ip=127.0.0.1,port=7001,state=online,offset=42,lag=0',
      'slave1:ip=127.0.0.1,port=7002,state=wait_bgsave,offset=0,lag=0',
    ].join('\r\n')
    expect(onlineReplicas(info)).toBe(1)
    expect(onlineReplicas('# Replication\r\nrole:master\r\nconnected_slaves:0\r\n')).toBe(0)
  })
})
