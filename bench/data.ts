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

export function benchJob(id: string, schedule: NewJob['schedule']): NewJob {
  return { id, queue: TARGET, payloadJson: PAYLOAD_JSON, schedule }
}
