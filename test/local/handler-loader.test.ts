// sdq-poll's handler loader: a TypeScript handler bundled with the service's esbuild throws with a stack that points
// at the user's .ts file and line, not at the bundle.
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'

// Inside the repository, so the service's esbuild (this repository's) is found from it.
const dir = resolve(__dirname, '../artifacts/handler-loader')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('sdq-poll handler loader', () => {
  it("bundles a .ts handler with source maps: a failing job's stack names the .ts file and line", async () => {
    // prepare: a handler whose line 4 throws
    mkdirSync(dir, { recursive: true })
    writeFileSync(resolve(dir, 'package.json'), '{"name":"svc","private":true}')
    writeFileSync(
      resolve(dir, 'close-order.ts'),
      [
        "import type { SQSEvent } from 'aws-lambda'",
        'export async function handler(event: SQSEvent): Promise<void> {',
        '  const n: number = event.Records.length',
        "  throw new Error('payment API down (' + n + ')')",
        '}',
        '',
      ].join('\n'),
    )
    // act: in a plain Node process, as sdq-poll runs (this test runner has source maps on already), the loader
    // compiled as the package's build compiles it
    const loader = resolve(dir, 'loader.mjs')
    await build({
      entryPoints: [resolve(__dirname, '../../tools/sdq-poll/handler-loader.ts')],
      outfile: loader,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'warning',
    })
    const script = `
      const { loadHandler, localContext } = await import(${JSON.stringify(loader)})
      const handler = await loadHandler('close-order.ts', ${JSON.stringify(dir)})
      await handler({ Records: [] }, localContext('svc', 1000)).catch((e) => console.log(e.stack))`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    // assess
    expect(out).toContain('payment API down (0)')
    expect(out).toMatch(/close-order\.ts:4:\d+/)
  })
})
