// What a write token costs in Redis memory: a job written without one is stored exactly as before (no byte more); one
// written with the api-client's 22-character key keeps ":" + key + "." + its request digest in its record. Measured
// as MEMORY USAGE of the shard's jobs hash (every field counted: SAMPLES 0), which holds this test's jobs only, so
// other files' keys do not blur it.
import { afterAll, describe, expect, it } from 'vitest'
import { newIdempotencyKey } from '../../src/api-client/idempotency-key'
import { decodeRecord } from '../../src/store/record'
import { job, testStore } from '../support/engine'

const JOBS = 2_000
// The benchmarks' job: a 200-byte payload, a 20-character id (bench/data.ts)
const PAYLOAD = JSON.stringify({ pad: 'x'.repeat(190) })
const t = testStore({ shards: 1 })
afterAll(() => t.close())

async function jobsHashBytes(prefix: string, withToken: boolean): Promise<number> {
  const store = testStore({ shards: 1, prefix })
  const jobs = Array.from({ length: JOBS }, (_, i) =>
    job({
      id: `m-${i.toString(36).padStart(18, '0')}`,
      payloadJson: PAYLOAD,
      due: { delayMs: 86_400_000 + i },
      ...(withToken ? { writeToken: newIdempotencyKey() } : {}),
    }),
  )
  for (const r of await store.store.enqueueMany(jobs)) if (r instanceof Error) throw r
  const bytes = Number(await store.redis.call('MEMORY', 'USAGE', store.keys.shards[0]!.jobs, 'SAMPLES', '0'))
  const sample = (await store.redis.hget(store.keys.shards[0]!.jobs, jobs[0]!.id))!
  expect(decodeRecord(sample).writeToken).toBe(jobs[0]!.writeToken)
  await store.close()
  return bytes
}

describe('write token memory', () => {
  it('costs nothing for a job written without a token, and a few dozen bytes with the 22-character key', async () => {
    // act
    const tag = Date.now().toString(36)
    const without = (await jobsHashBytes(`wtm-a-${tag}`, false)) / JOBS
    const withToken = (await jobsHashBytes(`wtm-b-${tag}`, true)) / JOBS
    // assess: the record grows by ":" + 22 characters + "." + 8 hex digits of its request digest (32 bytes), rounded
    // up to the allocator's next size class
    console.log(`jobs hash bytes per job: ${without.toFixed(1)} without a token, ${withToken.toFixed(1)} with one`)
    expect(withToken - without).toBeGreaterThanOrEqual(32)
    expect(withToken - without).toBeLessThanOrEqual(48)
    // (no token: the record holds no ":" in its version line, the form written before tokens existed)
    const plain =
      (await t.store.enqueue(job({ id: 'plain-one' }))) && (await t.redis.hget(t.keys.shards[0]!.jobs, 'plain-one'))
    expect(plain!.split('\n')[2]).toBe('0')
  })
})
