// Small statistics: medians over repetitions, nearest-rank percentiles (the same definition as src/scan/observe/latency.ts).
import { percentile } from '../src/scan/observe/latency'

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b)
  if (s.length === 0) return NaN
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export interface Percentiles {
  count: number
  p50: number
  p90: number
  p99: number
  max: number
}

export function percentiles(samples: readonly number[]): Percentiles {
  const s = [...samples].sort((a, b) => a - b)
  return {
    count: s.length,
    p50: percentile(s, 0.5),
    p90: percentile(s, 0.9),
    p99: percentile(s, 0.99),
    max: s[s.length - 1] ?? NaN,
  }
}

/** Runs `workers` loops that each take the next index until `total` are done: N calls in flight, no more. */
export async function inFlight(total: number, workers: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(workers, total) }, async () => {
      while (next < total) await task(next++)
    }),
  )
}
