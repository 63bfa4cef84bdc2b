// Adopting the delay queue from another service, exactly as a user does: the packed tarball installed into a copy of
// examples/user-service (a service of its own), type-checked with tsc, its entry points run from node_modules, its
// handlers bundled with esbuild and no loader, both stacks packaged offline with every Fn::ImportValue of the user's
// service matching an Export of the delay queue's, and the local loop: the dev stack without its example consumer,
// the user's consumer fed by the package's sdq-poll.
import { spawn, type ChildProcess } from 'node:child_process'
import { build } from 'esbuild'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { packAndInstall, run, type PackedInstall } from '../support/packed-install'
import { packageTemplate } from '../support/sls'
import { uniquePrefix } from '../support/engine'
import { eventually } from '../support/eventually'
import { startDevStack, type DevStack } from '../../local/dev-stack'
import { readDevEnv } from '../../tools/sdq-poll/dev-env'

const root = resolve(__dirname, '../..')
let installed: PackedInstall
// Started together with the install (they do not depend on it): the delay queue's template and its dev stack.
let delayQueueTemplate: Promise<Record<string, any>>
let devStack: Promise<DevStack>
const devDir = mkdtempSync(join(tmpdir(), 'sdq-dev-'))
const envFile = join(devDir, '.dev/env')
const output: string[] = []

beforeAll(async () => {
  delayQueueTemplate = packageTemplate(root, 'prod')
  devStack = startDevStack({
    redisUrl: inject('redisUrl'),
    env: { KEY_PREFIX: uniquePrefix('loop') },
    exampleConsumer: false,
    envFile,
    onOutput: (line) => output.push(line),
    log: (line) => output.push(`[dev] ${line}`),
  })
  // Awaited by the tests that use them; a failure must not surface before as an unhandled rejection.
  delayQueueTemplate.catch(() => {})
  devStack.catch(() => {})
  installed = await packAndInstall()
  console.log(`[user-service] npm pack ${installed.timings.packMs} ms, npm install ${installed.timings.installMs} ms`)
}, 180_000)

afterAll(async () => {
  await devStack?.then(
    (stack) => stack.stop(),
    () => {},
  )
  installed?.remove()
  rmSync(devDir, { recursive: true, force: true })
}, 60_000)

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
    for (const f of files)
      expect(f).toMatch(/^package\/(dist\/.+\.(js|d\.ts)|bin\/sdq-poll\.mjs|README\.md|package\.json)$/)
    expect(files).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/dist/consumer.js',
        'package/dist/api-client.js',
        'package/dist/bin/sdq-poll.js',
        'package/bin/sdq-poll.mjs',
      ]),
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
    const out = JSON.parse(
      await run(process.execPath, [program, inject('redisUrl'), uniquePrefix('pkg')], installed.service),
    )
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
    console.log(
      `[user-service] bundles: ${Object.entries(bundles)
        .map(([n, b]) => `${n} ${b.bytes} bytes (${b.inputs.length} inputs)`)
        .join(', ')}`,
    )
    expect(bundles['close-order']!.inputs.some((i) => i.includes('node_modules/ioredis/'))).toBe(false)
    expect(
      bundles['close-order']!.inputs.some((i) => i.includes('node_modules/serverless-delay-queue/dist/consumer.js')),
    ).toBe(true)
    expect(bundles['place-order']!.inputs.some((i) => i.includes('node_modules/ioredis/'))).toBe(false)
  })
})

describe('both stacks, packaged offline', () => {
  let delayQueue: Record<string, any>
  let userService: Record<string, any>

  beforeAll(async () => {
    ;[delayQueue, userService] = await Promise.all([delayQueueTemplate, packageTemplate(installed.service, 'prod')])
  }, 180_000)

  it("resolves every Fn::ImportValue of the user's service to an Export of the delay queue's stack", () => {
    const exports = collect(delayQueue.Outputs, 'Export')
    const imports = collect(userService.Resources, 'Fn::ImportValue')
    expect([...imports].sort()).toEqual([
      'serverless-delay-queue-prod-ApiFunctionArn',
      'serverless-delay-queue-prod-ApiFunctionUrl',
      'serverless-delay-queue-prod-TargetQueueOrdersArn',
    ])
    for (const name of imports) expect(exports).toContain(name)
  })

  it('attaches closeOrder to the orders queue with partial batch failures and a concurrency limit, its role able to delay retries', () => {
    const resources = Object.values<Record<string, any>>(userService.Resources)
    const mapping = resources.find((r) => r.Type === 'AWS::Lambda::EventSourceMapping')!.Properties
    expect(mapping.EventSourceArn).toEqual({ 'Fn::ImportValue': 'serverless-delay-queue-prod-TargetQueueOrdersArn' })
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures'])
    expect(mapping.ScalingConfig).toEqual({ MaximumConcurrency: 5 })
    const statements = userService.Resources.IamRoleLambdaExecution.Properties.Policies.flatMap(
      (p: any) => p.PolicyDocument.Statement,
    )
    const grants = (action: string) => statements.filter((s: any) => [s.Action].flat().includes(action))
    expect(grants('sqs:ChangeMessageVisibility').map((s: any) => s.Resource)).toEqual([mapping.EventSourceArn])
    for (const action of ['lambda:InvokeFunctionUrl', 'lambda:InvokeFunction'])
      expect(grants(action).map((s: any) => s.Resource)).toEqual([
        { 'Fn::ImportValue': 'serverless-delay-queue-prod-ApiFunctionArn' },
      ])
  })
})

describe("the local loop: the dev stack without its example consumer, sdq-poll running the user's handler", () => {
  let poller: ChildProcess | undefined
  let orders: Server
  let ordersUrl: string
  /** The orders service the user's handler calls: o-flaky fails its first call (the service "was down"). */
  const calls: { orderId: string; at: number; status: number }[] = []

  beforeAll(async () => {
    orders = createServer((req, res) => {
      const orderId = decodeURIComponent(/^\/orders\/([^/]+)\//.exec(req.url ?? '')?.[1] ?? '')
      const status = orderId === 'o-flaky' && !calls.some((c) => c.orderId === orderId) ? 503 : 200
      calls.push({ orderId, at: Date.now(), status })
      res.writeHead(status).end()
    })
    await new Promise<void>((ok) => orders.listen(0, '127.0.0.1', ok))
    ordersUrl = `http://127.0.0.1:${(orders.address() as AddressInfo).port}`

    await devStack
    // The user's terminal: `npx sdq-poll --env <delay queue>/.dev/env --queue orders --handler src/close-order.ts`
    // (the package's bin entry, which runs the bundle in dist/ when installed)
    const bin = join(installed.service, 'node_modules/serverless-delay-queue/bin/sdq-poll.mjs')
    poller = spawn(process.execPath, [bin, '--env', envFile, '--queue', 'orders', '--handler', 'src/close-order.ts'], {
      cwd: installed.service,
      env: { ...process.env, ORDERS_API_URL: ordersUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    for (const stream of [poller.stdout!, poller.stderr!])
      stream.on('data', (d) => output.push(...String(d).trim().split('\n')))
    await eventually(() => output.some((l) => l.startsWith('[sdq-poll] polling')), 30_000)
  }, 180_000)

  afterAll(async () => {
    if (poller && poller.exitCode === null) {
      const exited = new Promise((ok) => poller!.once('exit', ok))
      poller.kill('SIGTERM')
      await exited
    }
    await new Promise((ok) => orders?.close(ok))
  }, 60_000)

  it("hands a job scheduled by the user's placeOrder to the user's closeOrder, and retries a failing one with backoff", async () => {
    // prepare: placeOrder as the user's service runs it locally, with the addresses of the written env file
    const dev = readDevEnv(envFile)
    Object.assign(process.env, {
      DELAY_QUEUE_API_URL: dev.DELAY_QUEUE_API_URL,
      AWS_REGION: dev.AWS_REGION,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      PAYMENT_WINDOW_MS: '300',
    })
    const { handler: placeOrder } = await import(join(installed.service, 'src/place-order.ts'))
    // act
    for (const orderId of ['o-ok', 'o-flaky']) {
      const answer = await placeOrder({ body: JSON.stringify({ orderId }) })
      expect(answer.statusCode, answer.body).toBe(202)
    }
    // assess: each order reached the user's handler; o-flaky failed once and came back after the backoff
    await eventually(
      () => calls.filter((c) => c.orderId === 'o-flaky').length >= 2 && calls.some((c) => c.orderId === 'o-ok'),
      30_000,
    )
    const flaky = calls.filter((c) => c.orderId === 'o-flaky')
    expect(flaky.map((c) => c.status)).toEqual([503, 200])
    // backoff base 2 s, jitter from the upper half: the retry comes 1-2 s later, not at once and not after the
    // queue's visibility timeout (180 s)
    expect(flaky[1]!.at - flaky[0]!.at).toBeGreaterThanOrEqual(1_000)
    expect(flaky[1]!.at - flaky[0]!.at).toBeLessThan(10_000)
    expect(calls.filter((c) => c.orderId === 'o-ok').map((c) => c.status)).toEqual([200])
    const failed = output.find((l) => l.includes('"job failed"') && l.includes('order-o-flaky:close'))
    expect(JSON.parse(failed!.slice(failed!.indexOf('{')))).toMatchObject({
      attempt: 1,
      retryInSeconds: expect.any(Number),
    })
    await eventually(
      () =>
        output.some((l) => l.includes('"job done"') && l.includes('order-o-flaky:close') && l.includes('"attempt":2')),
      10_000,
    )
  }, 60_000)

  it('removes its env file when the dev stack stops, so no other service reads stale addresses', async () => {
    expect(existsSync(envFile)).toBe(true)
    await (await devStack).stop()
    expect(existsSync(envFile)).toBe(false)
  }, 60_000)
})
