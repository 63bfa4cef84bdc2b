// Diagnostics behind docs/cost.md "Right-sizing" ("the next lever"): what one SendMessageBatch of one message costs
// in CPU when calls are spaced like a steady stream (25 ms apart), through the AWS SDK client the scanner uses, and
// as the same request signed with @smithy/signature-v4 (as src/api-client/signer.ts signs) and sent over a keep-alive
// http.Agent. An empty timer wait is the baseline. Rounds alternate, in one process, against the bench's local SQS
// endpoint. Not part of `npm run bench`.
//   node scripts/run-ts.mjs bench/sqs-send-cost.ts [calls per round, default 400]
import { sleep } from '../devkit/sleep'
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs'
import { Hash } from '@smithy/core/serde'
import { SignatureV4 } from '@smithy/signature-v4'
import { Agent, request } from 'node:http'
import { startBenchEnv } from './env'
import { runMain } from './main'
import { scanParts } from './scanning'

const CALLS = Number(process.argv[2] ?? 400)
const GAP_MS = 25
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

async function cpuPerCall(call: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await call(i) // warm: connections, JIT
  const start = cpuMs()
  for (let i = 0; i < CALLS; i++) {
    await call(i)
    await sleep(GAP_MS)
  }
  return (cpuMs() - start) / CALLS
}

async function main() {
  const env = await startBenchEnv()
  const parts = await scanParts(env, 'send-cost')
  const agent = new Agent({ keepAlive: true })
  try {
    const body = JSON.stringify({ x: 'y'.repeat(380) })
    const entries = (i: number) => [
      { Id: '0', MessageBody: body, MessageAttributes: { jobId: { DataType: 'String', StringValue: `j${i}` } } },
    ]
    const url = new URL(env.sqs.endpoint)
    const signer = new SignatureV4({
      service: 'sqs',
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      sha256: Hash.bind(null, 'sha256'),
    })
    const signedPost = async (i: number) => {
      const payload = JSON.stringify({ QueueUrl: parts.queue.url, Entries: entries(i) })
      const signed = await signer.sign({
        method: 'POST',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: '/',
        query: {},
        headers: {
          host: url.host,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'AmazonSQS.SendMessageBatch',
          'content-length': String(Buffer.byteLength(payload)),
        },
        body: payload,
      })
      await new Promise<void>((resolve, reject) => {
        const req = request(
          { agent, host: url.hostname, port: url.port, method: 'POST', path: '/', headers: signed.headers },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString()
              if (res.statusCode !== 200) return reject(new Error(`${res.statusCode}: ${text}`))
              if (JSON.parse(text).Successful?.length !== 1) return reject(new Error(`not accepted: ${text}`))
              resolve()
            })
          },
        )
        req.on('error', reject)
        req.end(payload)
      })
    }
    const sdk = (i: number) =>
      parts.sqs.send(new SendMessageBatchCommand({ QueueUrl: parts.queue.url, Entries: entries(i) }))
    console.log(`CPU ms per call, ${CALLS} calls ${GAP_MS} ms apart, per round`)
    console.log('round | timer only | SDK SendMessageBatch | signed POST')
    for (let round = 1; round <= 2; round++) {
      const idle = await cpuPerCall(() => Promise.resolve())
      const viaSdk = await cpuPerCall(sdk)
      const viaPost = await cpuPerCall(signedPost)
      console.log(`${round} | ${idle.toFixed(3)} | ${viaSdk.toFixed(3)} | ${viaPost.toFixed(3)}`)
    }
  } finally {
    agent.destroy()
    parts.sqs.destroy()
    await parts.engine.close()
    await parts.queue.remove()
    await env.stop()
  }
}

runMain(main)
