// fauxqs in a child process of its own, for the dev stack. Like startSqsProcess in local/sqs-endpoint.ts, but safe
// in a CommonJS bundle (scripts/run-ts.mjs): that module imports fauxqs (ESM-only) at load time, and finds
// sqs-endpoint-main.mjs next to itself, which a bundle in .build/ is not.
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs'
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { stopChild } from './redis-server'
import type { LocalSqs } from './sqs-endpoint'

/** fauxqs accepts any credentials; these keep the SDK from looking for real ones. */
export const localSqsCredentials = { accessKeyId: 'local', secretAccessKey: 'local' }

export async function startSqsChild(root: string, port = 0): Promise<LocalSqs> {
  const child = spawn(process.execPath, [resolve(root, 'local/sqs-endpoint-main.mjs'), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const actualPort = await new Promise<number>((ok, fail) => {
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
      const m = /listening (\d+)/.exec(out)
      if (m) ok(Number(m[1]))
    })
    child.once('error', fail)
    child.once('exit', (code) => fail(new Error(`the local SQS endpoint exited (${code}) before it was ready`)))
  })
  const endpoint = `http://127.0.0.1:${actualPort}`
  const sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials: localSqsCredentials })
  return {
    endpoint,
    port: actualPort,
    createQueue: async (name, attributes) => {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))
      const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))
      return { queueUrl: QueueUrl!, queueArn: attrs.Attributes!.QueueArn! }
    },
    stop: async () => {
      sqs.destroy()
      await stopChild(child)
    },
  }
}
