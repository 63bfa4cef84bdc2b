// The local SQS endpoint: fauxqs, in this process (tests) or in a child process of its own (bench, dev stack),
// so that its CPU is not shared with the code that sends to it. Either way it listens on 127.0.0.1 only
// (local/fauxqs-loopback.mjs): fauxqs itself would listen on every address and accepts any credentials.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { FauxqsServer } from 'fauxqs'
import { trackChild } from './child-registry'
import { startFauxqsOnLoopback } from './fauxqs-loopback.mjs'
import { stopChild } from './redis-server'

export interface LocalSqs {
  /** Give this to every SQS client as `endpoint`: fauxqs's queue URLs name hosts that do not resolve. */
  endpoint: string
  port: number
  createQueue(name: string, attributes?: Record<string, string>): Promise<{ queueUrl: string; queueArn: string }>
  stop(): Promise<void>
}

/** fauxqs in this process. */
export async function startSqsInProcess(port = 0): Promise<LocalSqs & { server: FauxqsServer }> {
  const server = await startFauxqsOnLoopback({ port, logger: false })
  return {
    server,
    endpoint: `http://127.0.0.1:${server.port}`,
    port: server.port,
    createQueue: async (name, attributes) => server.createQueue(name, { attributes }),
    stop: () => server.stop(),
  }
}

/** fauxqs in a child process; queues are created through its SQS API. */
export async function startSqsProcess(port = 0): Promise<LocalSqs & { process: ChildProcess }> {
  const child = spawn(process.execPath, [childEntry(), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  trackChild(child, 'fauxqs (SQS endpoint process)')
  let timer: NodeJS.Timeout | undefined
  const actualPort = await new Promise<number>((ok, fail) => {
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
      const m = /listening (\d+)/.exec(out)
      if (m) ok(Number(m[1]))
    })
    child.once('error', fail)
    child.once('exit', (code) => fail(new Error(`the SQS endpoint exited (${code}) before it was ready`)))
    // A start that hangs must fail too.
    timer = setTimeout(() => fail(new Error('the SQS endpoint was not ready within 30 s')), 30_000)
  })
    .catch(async (e) => {
      // A failed start must not leave its process behind.
      await stopChild(child)
      throw e
    })
    .finally(() => clearTimeout(timer))
  const endpoint = `http://127.0.0.1:${actualPort}`
  return {
    endpoint,
    port: actualPort,
    process: child,
    createQueue: async (name, attributes) => {
      const { SQSClient, CreateQueueCommand, GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs')
      const sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials: localCredentials })
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))
      const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))
      sqs.destroy()
      return { queueUrl: QueueUrl!, queueArn: attrs.Attributes!.QueueArn! }
    },
    stop: () => stopChild(child),
  }
}

/** The child's entry, found from this module's folder up: here in local/, or from a bundle in .build/. */
function childEntry(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'sqs-endpoint-main.mjs'), join(dir, 'local', 'sqs-endpoint-main.mjs')]) {
      if (existsSync(candidate)) return candidate
    }
    if (dirname(dir) === dir) throw new Error(`local/sqs-endpoint-main.mjs not found above ${__dirname}`)
  }
}

/** fauxqs accepts any credentials; these keep the SDK from looking for real ones. */
export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' }
