// sdq-poll's handler loader: a TypeScript handler bundled with the service's esbuild throws with a stack that points
// at the user's .ts file and line, not at the bundle.
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'

// Inside the repository, so the service's esbuild (this repository's) is found from it.
const root = resolve(__dirname, '../..')
const dir = resolve(root, 'test/artifacts/handler-loader')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The loader compiled as the package's build compiles it, to run in a plain Node process as sdq-poll does. */
async function buildLoader(): Promise<string> {
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
  return loader
}

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
    // act: in a plain Node process, as sdq-poll runs (this test runner has source maps on already)
    const loader = await buildLoader()
    const script = `
      const { loadHandler, localContext } = await import(${JSON.stringify(loader)})
      const handler = await loadHandler('close-order.ts', ${JSON.stringify(dir)})
      await handler({ Records: [] }, localContext('svc', 1000)).catch((e) => console.log(e.stack))`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    // assess
    expect(out).toContain('payment API down (0)')
    expect(out).toMatch(/close-order\.ts:4:\d+/)
  })

  it("loads a .ts handler inside this repository that imports the package's consumer by name (the source, through tsconfig paths), whose @middy/core require() cannot load", async () => {
    // prepare: a handler as a user writes one while trying the consumer in a clone of the repository
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      resolve(dir, 'in-repo-consumer.ts'),
      [
        "import { jobHandler } from 'serverless-delay-queue/consumer'",
        'export const handler = jobHandler(async (job) => {',
        "  console.log('ran ' + job.id)",
        '})',
        '',
      ].join('\n'),
    )
    const loader = await buildLoader()
    // act: loaded from the repository's root (its esbuild, its tsconfig.json), then given an empty batch
    const script = `
      const { loadHandler, localContext } = await import(${JSON.stringify(loader)})
      const handler = await loadHandler(${JSON.stringify(resolve(dir, 'in-repo-consumer.ts'))}, ${JSON.stringify(root)})
      console.log(JSON.stringify(await handler({ Records: [] }, localContext('svc', 1000))))`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    // assess: it loaded and answered the batch as a Lambda handler
    expect(out.trim().split('\n').at(-1)).toBe('{"batchItemFailures":[]}')
  })
})
