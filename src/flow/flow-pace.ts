// A claim's pace of rate-limited names (lua/includes/flowPace.lua): a burst of one key's due jobs is held beyond what
// its rate lets go now in the claim itself, by a bucket of the shard alone, and the claim's reply carries only the rest
// (the scanner's gate asks the key's own bucket for those: src/flow/flow-gate.ts). Without this, every job of the burst
// came back to the scanner and cost a bucket call and a hold, and the jobs of other keys due after the burst waited
// for all of it. A held job asks the key's bucket when it comes back, which holds it further if need be.
//
// With one shard (SHARDS=1, the default) the shard's bucket runs at the key's rate and burst: it counts the same jobs
// as the key's, so a job it holds comes back when the key's bucket lets it go. With S shards each shard paces its part
// at its share, rate x PACE_SLACK / S (burst likewise, at least 1): a bucket per shard at the key's rate would bring
// each shard's part back S times too fast (most of it held again by the gate, every job asking within 1/S of its time),
// and exactly rate / S holds back the shards whose part is larger than 1/S (ids spread by hash: a 10,000-job burst
// over 12 shards puts 833 ± 29 on each) past the key's times, slowing the whole key down by its largest part. With
// the slack, parts up to 8 % over their share come back in time, and the gate holds the jobs that come early. A
// shard's first 10 jobs over the key's rate (flowPace.lua SHARD_ALONE) come back at the key's rate over them: the share
// assumes every shard holds as many, and a key's few jobs on one shard, or a stream under its rate, would wait S / 1.08
// times the rate's interval each (modelled, a random stream at half of 1/s on 12 shards: 5.4 s late on average, 0.5 s
// with the key's bucket alone). Each shard's held jobs come back in groups as large as the key's (FlowGate
// groupedTime: 10 at most), on a grid of its own shifted by the shard (flowPace.lua), so the shards' groups take turns
// instead of all waking every scanner at once.
import type { FlowRate } from './flow-names'

/** How much faster than its share of a key's rate each of several shards paces its part (see above). */
export const PACE_SLACK = 1.08

/**
 * The claim's ARGV for `rates` on `shards` shards ("<name>\t<rate>\t<burst>\t<cell ms>\t<key rate>\n" each: the
 * shard's rate, burst and grid, and the key's own rate; '' for none: a claim then does no more than without flow
 * control). `cellMs` gives the grid held jobs come back on (FlowGate groupedTime's), per shard as many of its jobs to a
 * cell as the key has.
 */
export function paceSpec(
  rates: ReadonlyMap<string, FlowRate>,
  cellMs: (rate: FlowRate) => number,
  shards: number,
): string {
  const share = shards === 1 ? 1 : PACE_SLACK / shards
  let spec = ''
  for (const [name, rate] of rates) {
    const burst = shards === 1 ? rate.burst : Math.max(1, Math.ceil(rate.burst * share))
    spec += `${name}\t${rate.rate * share}\t${burst}\t${cellMs(rate) / share}\t${rate.rate}\n`
  }
  return spec
}
