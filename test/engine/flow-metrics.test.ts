// Flow control's metrics (src/flow/flow-metrics.ts): what one window publishes, and that an idle one publishes none.
import { describe, expect, it } from 'vitest'
import { FlowTally } from '../../src/flow/flow-metrics'

/** Records addMetric calls as "<name> <value>". */
function sink() {
  const lines: string[] = []
  return { lines, addMetric: (name: string, _unit: unknown, value: number) => void lines.push(`${name} ${value}`) }
}

describe('flow control metrics', () => {
  it('publishes the jobs held per window and how late the latest held by a rate will leave, then starts afresh', () => {
    // prepare
    const tally = new FlowTally()
    tally.rateHeld('emails', 'k:mail', 400)
    tally.rateHeld('emails', 'k:mail', 2_600)
    tally.rateHeld('orders', 'q:orders', 90)
    tally.paused()
    const first = sink()
    const second = sink()
    // act
    tally.addTo(first)
    tally.addTo(second)
    // assess
    expect(first.lines).toEqual(['FlowRateHeld 3', 'FlowRateLatenessMax 2600', 'FlowPausedHeld 1'])
    expect(second.lines).toEqual([])
  })
})
