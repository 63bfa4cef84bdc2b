// Times as the page shows them: absolute in UTC ("2026-11-29 09:00:00Z"), with how far that is from now beside it
// ("in 3 min", "2 h ago"), as an operator reads a due time at a glance. Pure: tests give `now`.
import { html } from 'lit-html'

/** "2026-11-29 09:00:00Z" (UTC, to the second). */
export const utc = (at: number | string) => `${new Date(at).toISOString().replace('T', ' ').slice(0, 19)}Z`

const UNITS: [limitMs: number, unitMs: number, name: string][] = [
  [60_000, 1_000, 's'],
  [3_600_000, 60_000, 'min'],
  [86_400_000, 3_600_000, 'h'],
  [Number.POSITIVE_INFINITY, 86_400_000, 'd'],
]

/** How far `at` is from `now`: "now" within a second, "in 3 min", "2 h ago" (to the nearest whole unit). */
export function relative(at: number | string, now: number): string {
  const delta = new Date(at).getTime() - now
  const size = Math.abs(delta)
  if (size < 1_000) return 'now'
  const [, unit, name] = UNITS.find(([limit]) => size < limit)!
  const n = Math.round(size / unit)
  return delta > 0 ? `in ${n} ${name}` : `${n} ${name} ago`
}

/** The absolute time with the relative one beside it. */
export const when = (at: number | string, now = Date.now()) =>
  html`${utc(at)} <span class="muted" data-relative>(${relative(at, now)})</span>`
