// A claim's pace of rate-limited names (lua/includes/flowPace.lua): a burst of one key's due jobs is held beyond what
// its rate lets go now in the claim itself, by a bucket of the shard alone, and the claim's reply carries only the rest
// (the scanner's gate asks the key's own bucket for those: src/flow/flow-gate.ts). Without this, every job of the burst
// came back to the scanner and cost a bucket call and a hold, and the jobs of other keys due after the burst waited
// for all of it. The shard's bucket counts fewer jobs than the key's (only this shard's), so a job it holds comes
// back no later than the key's bucket would let it go, and asks that bucket then.
import type { PacedJobs } from '../scan/claims/claimed-job'
import type { FlowRate } from './flow-names'

/**
 * The claim's ARGV for `rates` ("<name>\t<rate>\t<burst>\t<cell ms>\n" each, '' for none: a claim then does no more
 * than without flow control). `cellMs` gives the grid held jobs come back on (FlowGate groupedTime's).
 */
export function paceSpec(rates: ReadonlyMap<string, FlowRate>, cellMs: (rate: FlowRate) => number): string {
  let spec = ''
  for (const [name, rate] of rates) spec += `${name}\t${rate.rate}\t${rate.burst}\t${cellMs(rate)}\n`
  return spec
}

/** The claim reply's paced jobs ("<name>\t<count>\t<latest late ms>\n" each). */
export function parsePaced(text: string | undefined): PacedJobs[] {
  if (!text) return []
  return text
    .split('\n')
    .filter(Boolean)
    .map((row) => {
      const [name, count, late] = row.split('\t')
      return { name: name!, count: Number(count), latestLateMs: Number(late) }
    })
}
