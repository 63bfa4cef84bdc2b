// The local stack fires the scan function like EventBridge: on every tick, whether or not the run before has ended.
// So the overlaps of AWS show locally: a continuous run lasts until the next tick's run takes over from it.
import { describe, expect, it } from 'vitest'
import { devStackForFile } from '../support/dev-stack'
import { uniquePrefix } from '../support/engine'
import { eventually } from '../support/eventually'

const prefix = uniquePrefix('e2e-ticks')

/** Ticks this far apart: a continuous run (66 s to its deadline) is still running at the next one. */
const TICK_MS = 2_000

const dev = devStackForFile({ env: { KEY_PREFIX: prefix, SCAN_MODE: 'continuous' }, scanTickMs: TICK_MS }, 90_000)

/** The "scan finished" lines so far. */
function finishedRuns(): { handedOverTo: string | null; activeMs: number }[] {
  return dev.output
    .filter((l) => l.includes('"scan finished"'))
    .map((l) => JSON.parse(l.slice(l.indexOf('{"level"'))) as { handedOverTo: string | null; activeMs: number })
}

describe('the local stack ticks like EventBridge', () => {
  it('invokes the scan on the next tick while the run before still scans, and that run hands over to it', async () => {
    // prepare / act: the stack's first tick at once, the next TICK_MS later
    await eventually(() => finishedRuns().length > 0, 30_000)
    // assess: the first run ended by handing over to a newer run (the next tick's), long before its deadline
    const [first] = finishedRuns()
    expect(first!.handedOverTo).toEqual(expect.any(String))
    expect(first!.activeMs).toBeLessThan(20_000)
  }, 40_000)
})
