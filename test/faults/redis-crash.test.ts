// Scenario: redis-server with AOF (appendfsync everysec) is killed with -9 in the middle of enqueue and dispatch
// load, and restarted on the same port and data directory. Every job accepted at least 1 s before the crash must
// still be delivered; everysec may lose the last second of writes: how many of those jobs are lost is measured.
import { sleep } from '../../devkit/sleep'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis } from '../../local/redis-server'
import { audit, between, spawnScanner, startStage, waitForDrain, type Stage } from './harness'
import { recordFigures } from './results'
import { pick } from './scale'

const LOAD_MS = pick(4_000, 30_000)
const CRASH_AT_MS = LOAD_MS / 2
const DOWN_MS = pick(500, 2_000)
const CHUNK = 50

let stage: Stage
let dataDir: string
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sdq-aof-'))
  stage = await startStage({ redis: { dataDir } })
})
afterAll(async () => {
  await stage?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('redis-server killed (-9) and restarted with its AOF', () => {
  it(
    'still delivers every job accepted at least 1 s before the crash',
    async () => {
      // prepare: two scanners dispatching
      const workers = [await spawnScanner(stage.env), await spawnScanner(stage.env)]
      await Promise.all(workers.map((w) => w.ready))
      const acceptedAt = new Map<string, number>()
      let failedEnqueues = 0
      let crashAt = 0
      let n = 0
      const started = Date.now()

      // act: enqueue in chunks (due within 0-3 s) while, halfway, Redis dies and comes back
      const load = (async () => {
        while (Date.now() - started < LOAD_MS) {
          const jobs = Array.from({ length: CHUNK }, () => ({
            id: `c-${n++}`,
            queue: 'orders',
            payloadJson: '{"crash":true}',
            due: { delayMs: between(0, 3_000) },
          }))
          try {
            const results = await stage.engine.store.enqueueMany(jobs)
            const at = Date.now()
            for (const r of results) if (!(r instanceof Error)) acceptedAt.set(r.id, at)
          } catch {
            failedEnqueues += CHUNK
            await sleep(50)
          }
          await sleep(pick(10, 0)) // the short run needs far fewer jobs to prove the same
        }
      })()
      await sleep(CRASH_AT_MS)
      crashAt = Date.now()
      stage.redis.process.kill('SIGKILL')
      await new Promise((r) => stage.redis.process.once('exit', r))
      await sleep(DOWN_MS)
      stage.redis = await startRedis({ port: stage.redis.port, dataDir })
      await load
      const drained = await waitForDrain(stage.engine, pick(30_000, 120_000))
      await Promise.all(workers.map((w) => w.stop()))

      // assess
      const result = await audit(stage, acceptedAt.keys())
      const lostEarly = result.lost.filter((id) => acceptedAt.get(id)! <= crashAt - 1_000)
      const lostLastSecond = result.lost.length - lostEarly.length
      const acceptedLastSecond = [...acceptedAt.values()].filter((t) => t > crashAt - 1_000 && t <= crashAt).length
      recordFigures({
        case: 'redis-crash',
        scenario: 'redis-server (AOF everysec) kill -9 + restart during enqueue and dispatch load, 2 scanners',
        jobs: acceptedAt.size,
        faults: `1 x kill -9 of redis-server, down ${DOWN_MS / 1000} s`,
        lost: lostEarly.length,
        duplicated: result.duplicated,
        notes: {
          lostAcceptedInLastSecond: lostLastSecond,
          acceptedInLastSecond: acceptedLastSecond,
          enqueuesRefusedDuringOutage: failedEnqueues,
          deliveredThoughRefused: result.unaccepted,
          dead: result.dead,
          drained,
        },
      })
      expect(acceptedAt.size).toBeGreaterThan(0)
      expect(drained).toBe(true)
      expect(lostEarly).toEqual([])
      expect(result.dead).toBe(0)
    },
    pick(90_000, 300_000),
  )
})
