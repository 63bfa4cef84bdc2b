// scripts/run-ts.mjs bundles an entry to one file per entry (.build/<name>.cjs), and several processes do it at once
// (test files running the operator CLI side by side). A process that runs the file while another writes it must find
// a whole file: an empty one runs, prints nothing and exits 0 (a CLI test read no answer at all).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without types
import { bundle } from '../../scripts/run-ts.mjs'

const outDir = mkdtempSync(join(tmpdir(), 'sdq-bundle-'))
afterAll(() => rmSync(outDir, { recursive: true, force: true }))

describe('bundling an entry several times at once', () => {
  it('never shows a reader a file that is not whole', async () => {
    // prepare: a reader of the bundle's file, as fast as the event loop lets it
    let reads = 0
    const partial: number[] = []
    let reading = true
    const reader = (async () => {
      while (reading) {
        try {
          const text = readFileSync(join(outDir, 'sdq.cjs'), 'utf8')
          reads++
          if (!text.includes('sourceMappingURL')) partial.push(text.length)
        } catch {
          // not written yet
        }
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    // act: two bundles at once, three times
    for (let round = 0; round < 3; round++)
      await Promise.all([bundle('src/ops/sdq.ts', outDir), bundle('src/ops/sdq.ts', outDir)])
    reading = false
    await reader
    // assess: it read the file, and every read was a whole bundle
    expect(reads).toBeGreaterThan(0)
    expect(partial).toEqual([])
  }, 60_000)
})
