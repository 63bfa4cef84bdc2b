// The local SQS endpoint: fauxqs, in this process (tests) or in a child process of its own (bench, dev stack),
// so that its CPU is not shared with the code that sends to it.
import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { startFauxqs, type FauxqsServer } from 'fauxqs'
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
  const server = await startFauxqs({ port, logger: false })
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
  const child = spawn(process.execPath, [resolve(__dirname, 'sqs-endpoint-main.mjs'), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const actualPort = await new Promise<number>((ok, fail) => {
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
      const m = /listening (\d+)/.exec(out)
      if (m) ok(Number(m[1]))
    })
    child.once('exit', (code) => fail(new Error(`the SQS endpoint exited (${code}) before it was ready`)))
  })
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

/** fauxqs accepts any credentials; these keep the SDK from looking for real ones. */
export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' }
