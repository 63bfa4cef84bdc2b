// A claim's pace of rate-limited names (lua/includes/flowPace.lua): a burst of one key's due jobs is held beyond what
// its rate lets go now in the claim itself, by a bucket of the shard alone, and the claim's reply carries only the rest
// (the scanner's gate asks the key's own bucket for those: src/flow/flow-gate.ts). Without this, every job of the burst
// came back to the scanner and cost a bucket call and a hold, and the jobs of other keys due after the burst waited
// for all of it. A held job asks the key's bucket when it comes back, which holds it further if need be.
//
// Only with one shard (SHARDS=1, the default): the shard's bucket, at the key's rate and burst, then counts the same
// jobs as the key's, so a job it holds comes back when the key's bucket lets it go, and the work per job drops. With S
// shards a bucket per shard at the key's rate would bring each shard's part of a backlog back S times too fast (most
// of it held twice, all of it asking within 1/S of its time), and one at the shard's share of the rate would hold a
// shard's part that is larger than its share (ids spread by hash) past the key's bucket's times: slower than the rate.
// On the bench's Cluster (12 shards) both left the other jobs later than no pace did, and the second missed the rate.
import type { FlowRate } from './flow-names'

/**
 * The claim's ARGV for `rates` on `shards` shards ("<name>\t<rate>\t<burst>\t<cell ms>\n" each, '' for none: a claim
 * then does no more than without flow control). `cellMs` gives the grid held jobs come back on (FlowGate groupedTime's).
 */
export function paceSpec(
  rates: ReadonlyMap<string, FlowRate>,
  cellMs: (rate: FlowRate) => number,
  shards: number,
): string {
  if (shards !== 1) return ''
  let spec = ''
  for (const [name, rate] of rates) spec += `${name}\t${rate.rate}\t${rate.burst}\t${cellMs(rate)}\n`
  return spec
}
