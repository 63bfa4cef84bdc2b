// The jobs every measurement uses: the sizes the issue asks for, built the same way everywhere so that the raw
// references and the library move the same bytes.
import type { NewJob } from '../src/store/job-store'

/** A 200-byte JSON payload. */
export const PAYLOAD_JSON = JSON.stringify({ data: 'x'.repeat(189) })
if (PAYLOAD_JSON.length !== 200) throw new Error(`payload is ${PAYLOAD_JSON.length} bytes, expected 200`)

export const TARGET = 'bench'

/** A 20-character id, unique per (tag, n). */
export function jobId(tag: string, n: number): string {
  const id = `${tag}-${n.toString(36).padStart(19 - tag.length, '0')}`
  if (id.length !== 20) throw new Error(`id ${id} is not 20 characters`)
  return id
}

/** How a steady stream's due times are spread: evenly, or at random like independent users (a Poisson process). */
export type Arrivals = 'even' | 'poisson'

/**
 * Offsets (ms from the first due time) of `count` jobs at `ratePerSec`: evenly spaced, or with exponential gaps
 * drawn from a fixed seed, so every run and every size sees the same stream.
 */
export function dueOffsets(count: number, ratePerSec: number, arrivals: Arrivals): number[] {
  if (arrivals === 'even') return Array.from({ length: count }, (_, i) => Math.floor((i * 1000) / ratePerSec))
  let seed = 0x5eed
  const random = () => {
    // mulberry32: small, seeded, good enough to draw arrival gaps
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  let at = 0
  return Array.from({ length: count }, () => {
    const offset = Math.floor(at)
    at += (-Math.log(1 - random()) * 1000) / ratePerSec
    return offset
  })
}

export function benchJob(id: string, due: NewJob['due']): NewJob {
  return { id, queue: TARGET, payloadJson: PAYLOAD_JSON, due }
}
