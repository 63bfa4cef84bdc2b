// `npm run sdq -- run` and `sdq run-due` as an operator types them: one job due now by id, and every job due before a
// time, step by step to the end.
import { afterAll, describe, expect, it } from 'vitest'
import { job } from '../support/engine'
import { cliStage, jsonLines, runSdq } from '../support/sdq-cli'

const { t, env } = cliStage('run-cli', ['orders', 'emails'])
afterAll(() => t.close())
const HOUR = 3_600_000

describe('sdq run and run-due', () => {
  it('runs one job now by id, then the jobs of a queue due before a time; later and other jobs stay', async () => {
    // prepare
    const one = await t.store.enqueue(job({ id: 'cli-r-1', queue: 'orders', due: { delayMs: 5 * HOUR } }))
    for (const [id, queue, delayMs] of [
      ['cli-r-2', 'orders', HOUR],
      ['cli-r-3', 'orders', HOUR + 1],
      ['cli-r-mail', 'emails', HOUR],
      ['cli-r-late', 'orders', 3 * HOUR],
    ] as const)
      await t.store.enqueue(job({ id, queue, due: { delayMs } }))
    // act
    const ran = jsonLines(await runSdq(env, 'run', 'cli-r-1'))
    const before = new Date(Date.now() + 2 * HOUR).toISOString()
    const due = jsonLines(await runSdq(env, 'run-due', '--before', before, '--queue', 'orders'))
    // assess: the job by id once, its earlier time given; then 2 orders jobs, not the late one nor the emails one
    expect(ran).toEqual([
      { id: 'cli-r-1', runAt: expect.any(String), previousRunAt: new Date(one.dueMs).toISOString() },
    ])
    expect(due.at(-1)).toEqual({ promotedInAll: 2 })
    expect(due.at(-2)).toEqual(expect.objectContaining({ cursor: null }))
    const runAt = async (id: string) => Date.parse((await t.store.get(id))!.runAt)
    expect(await runAt('cli-r-2')).toBeLessThanOrEqual(Date.now())
    expect(await runAt('cli-r-mail')).toBeGreaterThan(Date.now() + HOUR / 2)
    expect(await runAt('cli-r-late')).toBeGreaterThan(Date.now() + 2 * HOUR)
  }, 60_000)

  it('runs the jobs with a tag now, whatever their time; other tags stay', async () => {
    // prepare
    await t.store.enqueue(job({ id: 'cli-t-1', tags: ['order:77'], due: { delayMs: 5 * HOUR } }))
    await t.store.enqueue(job({ id: 'cli-t-2', tags: ['order:78'], due: { delayMs: 5 * HOUR } }))
    // act
    const due = jsonLines(await runSdq(env, 'run-due', '--tag', 'order:77'))
    // assess
    expect(due).toEqual([{ promoted: 1, inFlight: 0, cursor: null }, { promotedInAll: 1 }])
    expect(Date.parse((await t.store.get('cli-t-1'))!.runAt)).toBeLessThanOrEqual(Date.now())
    expect(Date.parse((await t.store.get('cli-t-2'))!.runAt)).toBeGreaterThan(Date.now() + HOUR)
  }, 60_000)

  it('refuses run-due without --before and an unknown job, saying why', async () => {
    const noTime = await runSdq(env, 'run-due')
    const unknown = await runSdq(env, 'run', 'cli-r-nobody')
    expect(noTime.code).toBe(2)
    expect(noTime.stderr).toContain('--before or --tag is required')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('cli-r-nobody')
  }, 60_000)
})
