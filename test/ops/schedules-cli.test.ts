// `npm run sdq -- schedules ...` by tag, as an operator types it: list the schedules with a tag, delete them all (the
// others stay); naming an id and a tag at once is a usage mistake (exit 2), a bad tag breaks a rule (exit 1 naming
// tag), and neither deletes anything.
import { afterAll, describe, expect, it } from 'vitest'
import { cliStage, jsonLines, runSdq } from '../support/sdq-cli'
import { testQueue } from '../support/schedules'

const { t, env } = cliStage('schedules-cli', ['orders'])
afterAll(() => t.close())

const sdq = async (...args: string[]) => jsonLines(await runSdq(env, ...args))
const every = { queue: 'orders', payload: 1, everyMs: 3_600_000 }

describe('sdq schedules by tag', () => {
  it('lists the schedules with a tag and deletes them all, leaving the others', async () => {
    // prepare
    const q = testQueue(t)
    for (const id of ['r5-digest', 'r5-nudge']) await q.putSchedule(id, { ...every, tags: ['region:5'] })
    await q.putSchedule('r6-digest', { ...every, tags: ['region:6'] })
    // act
    const [listed] = await sdq('schedules', 'list', '--tag', 'region:5')
    const deleted = await sdq('schedules', 'delete', '--tag', 'region:5')
    // assess
    expect(listed!.schedules.map((s: { id: string }) => s.id)).toEqual(['r5-digest', 'r5-nudge'])
    expect(deleted).toEqual([{ tag: 'region:5', deleted: 2, done: true }])
    expect(await q.getSchedule('r5-digest')).toBeNull()
    expect(await q.getSchedule('r5-nudge')).toBeNull()
    expect(await q.getSchedule('r6-digest')).not.toBeNull()
  }, 60_000)

  it('refuses an id with a tag (usage, exit 2) and a bad tag (exit 1 naming tag), deleting nothing', async () => {
    // prepare
    const q = testQueue(t)
    await q.putSchedule('r7-digest', { ...every, tags: ['region:7'] })
    // act
    const both = await runSdq(env, 'schedules', 'delete', 'r7-digest', '--tag', 'region:7')
    const bad = await runSdq(env, 'schedules', 'delete', '--tag', 'a b')
    // assess
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('name a schedule id or --tag T, not both')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('tag: must be')
    expect(await q.getSchedule('r7-digest')).not.toBeNull()
  }, 60_000)
})
