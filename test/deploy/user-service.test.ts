// Adopting the delay queue from another service, exactly as a user does: the packed tarball installed into a copy of
// examples/user-service (a service of its own), type-checked with tsc, its entry points run from node_modules, its
// handlers bundled with esbuild and no loader, and both stacks packaged offline with every Fn::ImportValue of the
// user's service matching an Export of the delay queue's.
import { build } from 'esbuild'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { packAndInstall, run, type PackedInstall } from '../support/packed-install'
import { packageTemplate } from '../support/sls'
import { uniquePrefix } from '../support/engine'

const root = resolve(__dirname, '../..')
let installed: PackedInstall

beforeAll(async () => {
  installed = await packAndInstall()
  console.log(`[user-service] npm pack ${installed.timings.packMs} ms, npm install ${installed.timings.installMs} ms`)
}, 180_000)

afterAll(() => installed?.remove())

/** Every string value under `Fn::ImportValue` / the Name of every `Export` in a template. */
function collect(node: unknown, key: 'Fn::ImportValue' | 'Export', out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => collect(n, key, out))
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === key) out.add(key === 'Export' ? (v as { Name: string }).Name : (v as string))
      else collect(v, key, out)
    }
  }
  return out
}

describe('the packed package, installed into another service', () => {
  it('holds only the build: JavaScript, declarations, README and package.json', async () => {
    const files = (await run('tar', ['-tzf', installed.tarball], installed.dir)).trim().split('\n')
    console.log(`[user-service] tarball: ${files.length} files, ${readFileSync(installed.tarball).length} bytes`)
    for (const f of files) expect(f).toMatch(/^package\/(dist\/.+\.(js|d\.ts)|README\.md|package\.json)$/)
    expect(files).toEqual(
      expect.arrayContaining(['package/dist/index.js', 'package/dist/consumer.js', 'package/dist/api-client.js', 'package/dist/bin/sdq-poll.js']),
    )
  })

  it("type-checks the user's service with tsc (strict, nodenext, the package's declarations checked too)", async () => {
    await run(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', '.'], installed.service)
  })

  it('runs a program that uses each entry point from node_modules, Lua scripts included', async () => {
    // prepare: DelayQueue against the test Redis, with a key prefix of its own
    const program = join(installed.service, 'program.cjs')
    writeFileSync(
      program,
      `
      const loaded = () => Object.keys(require.cache).some((p) => p.includes('/node_modules/ioredis/'))
      const consumer = require('serverless-delay-queue/consumer')
      const ioredisAfterConsumer = loaded()
      const { DelayQueueApiClient, JobConflictError } = require('serverless-delay-queue/api-client')
      const { DelayQueue, ValidationError } = require('serverless-delay-queue')
      const queue = DelayQueue.fromEnv({ REDIS_URL: process.argv[2], KEY_PREFIX: process.argv[3], QUEUES: 'orders=http://127.0.0.1:9/q/orders' })
      ;(async () => {
        const job = await queue.schedule({ queue: 'orders', payload: { orderId: 'o-1' }, delayMs: 60000 })
        const view = await queue.get(job.id)
        const invalid = await queue.schedule({ queue: 'nope', payload: 1 }).catch((e) => e instanceof ValidationError)
        await queue.close()
        console.log(JSON.stringify({
          ioredisAfterConsumer,
          jobHandler: typeof consumer.jobHandler,
          client: typeof new DelayQueueApiClient({ url: 'https://x.execute-api.eu-west-1.amazonaws.com' }).schedule,
          conflict: typeof JobConflictError,
          view,
          invalid,
        }))
      })()
    `,
    )
    // act
    const out = JSON.parse(await run(process.execPath, [program, inject('redisUrl'), uniquePrefix('pkg')], installed.service))
    // assess
    expect(out).toMatchObject({
      ioredisAfterConsumer: false,
      jobHandler: 'function',
      client: 'function',
      conflict: 'function',
      view: { queue: 'orders', status: 'scheduled', payload: { orderId: 'o-1' } },
      invalid: true,
    })
  })

  it("bundles the user's handlers with esbuild and no extra loader; the consumer's bundle holds no ioredis", async () => {
    const bundles: Record<string, { bytes: number; inputs: string[] }> = {}
    for (const name of ['close-order', 'place-order']) {
      const result = await build({
        absWorkingDir: installed.service,
        entryPoints: [`src/${name}.ts`],
        outfile: join(installed.dir, 'bundles', `${name}.js`),
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node24',
        external: ['@aws-sdk/*'],
        metafile: true,
        logLevel: 'silent',
      })
      const [output] = Object.values(result.metafile.outputs)
      bundles[name] = { bytes: output!.bytes, inputs: Object.keys(result.metafile.inputs) }
    }
    console.log(`[user-service] bundles: ${Object.entries(bundles).map(([n, b]) => `${n} ${b.bytes} bytes (${b.inputs.length} inputs)`).join(', ')}`)
    expect(bundles['close-order']!.inputs.some((i) => i.includes('node_modules/ioredis/'))).toBe(false)
    expect(bundles['close-order']!.inputs.some((i) => i.includes('node_modules/serverless-delay-queue/dist/consumer.js'))).toBe(true)
    expect(bundles['place-order']!.inputs.some((i) => i.includes('node_modules/ioredis/'))).toBe(false)
  })
})

describe('both stacks, packaged offline', () => {
  let delayQueue: Record<string, any>
  let userService: Record<string, any>

  beforeAll(async () => {
    ;[delayQueue, userService] = await Promise.all([packageTemplate(root, 'prod'), packageTemplate(installed.service, 'prod')])
  }, 180_000)

  it("resolves every Fn::ImportValue of the user's service to an Export of the delay queue's stack", () => {
    const exports = collect(delayQueue.Outputs, 'Export')
    const imports = collect(userService.Resources, 'Fn::ImportValue')
    expect([...imports].sort()).toEqual([
      'serverless-delay-queue-prod-HttpApiId',
      'serverless-delay-queue-prod-HttpApiUrl',
      'serverless-delay-queue-prod-TargetQueueOrdersArn',
    ])
    for (const name of imports) expect(exports).toContain(name)
  })

  it("attaches closeOrder to the orders queue with partial batch failures, its role able to delay retries", () => {
    const resources = Object.values<Record<string, any>>(userService.Resources)
    const mapping = resources.find((r) => r.Type === 'AWS::Lambda::EventSourceMapping')!.Properties
    expect(mapping.EventSourceArn).toEqual({ 'Fn::ImportValue': 'serverless-delay-queue-prod-TargetQueueOrdersArn' })
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures'])
    const statements = userService.Resources.IamRoleLambdaExecution.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement)
    const grants = (action: string) => statements.filter((s: any) => [s.Action].flat().includes(action))
    expect(grants('sqs:ChangeMessageVisibility').map((s: any) => s.Resource)).toEqual([mapping.EventSourceArn])
    expect(JSON.stringify(grants('execute-api:Invoke'))).toContain('serverless-delay-queue-prod-HttpApiId')
  })
})
