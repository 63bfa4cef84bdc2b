// The dashboard's relative times ("in 3 min", "2 h ago") beside absolute ones, and the pending page's search.
import { describe, expect, it } from 'vitest'
import { matching } from '../../src/ops/dashboard/browser/pending'
import { relative, utc } from '../../src/ops/dashboard/browser/times'

const NOW = Date.UTC(2026, 10, 29, 9, 0, 0)

describe('relative times', () => {
  it('says how far a time is from now to the nearest whole unit, ahead or behind', () => {
    expect(relative(NOW + 400, NOW)).toBe('now')
    expect(relative(NOW + 45_000, NOW)).toBe('in 45 s')
    expect(relative(NOW + 185_000, NOW)).toBe('in 3 min')
    expect(relative(NOW - 2 * 3_600_000 - 59_000, NOW)).toBe('2 h ago')
    expect(relative(new Date(NOW + 3 * 86_400_000).toISOString(), NOW)).toBe('in 3 d')
    expect(relative(NOW + 5 * 86_400_000 - 400, NOW)).toBe('in 5 d')
    expect(utc(NOW)).toBe('2026-11-29 09:00:00Z')
  })
})

describe('the pending page search', () => {
  it('keeps the rows whose id or group holds the text, in any case', () => {
    const row = (id: string, groupId?: string) => ({
      id,
      queue: 'q',
      runAt: '',
      createdAt: '',
      payloadBytes: 1,
      ...(groupId ? { groupId } : {}),
    })
    const rows = [row('order-1', 'Tenant-A'), row('order-2', 'tenant-b'), row('mail-1')]
    expect(matching(rows, 'ORDER').map((r) => r.id)).toEqual(['order-1', 'order-2'])
    expect(matching(rows, 'tenant-a').map((r) => r.id)).toEqual(['order-1'])
    expect(matching(rows, '  ').map((r) => r.id)).toEqual(['order-1', 'order-2', 'mail-1'])
  })
})
