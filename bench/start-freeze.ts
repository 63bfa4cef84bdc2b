// `node scripts/run-ts.mjs bench/start-freeze.ts`: what a scan start left running after the API's answer becomes when
// the process is frozen right after that answer, as Lambda freezes an execution environment once its handler has
// returned. Each sample is a fresh process (a cold API container): it builds the Lambda invoker as the API does,
// starts one invoke of a loopback Lambda endpoint that answers after ANSWER_AFTER_MS, waits what the write's answer
// waits for a start (START_TIMINGS.answerWaitMs), and stops itself (SIGSTOP), as a frozen environment. The endpoint
// notes whether the invoke reached it while the process was stopped; after FROZEN_MS the process is continued
// (SIGCONT, the environment's next request) and reports when its invoke settled.
import { sleep } from '../devkit/sleep'
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { lambdaInvoker } from '../src/on-demand/start/lambda-invoker'
import { START_TIMINGS } from '../src/on-demand/start/scan-starter'
import { runMain } from './main'

const SAMPLES = 20
const ANSWER_AFTER_MS = 100
const FROZEN_MS = 2_000
const CHILD = '--child'

async function child(endpoint: string) {
  const invoker = lambdaInvoker({ region: 'us-east-1', lambdaEndpoint: endpoint }, 'sdq-freeze-scan')
  await sleep(300) // the SDK module loads in the background while the API's module loads (as at a cold start)
  const t0 = Date.now()
  const invoke = invoker.invoke({ source: 'sdq.enqueue', 'detail-type': 'Scan Start', startToken: 'f' }).then(
    () => 'accepted',
    (e) => `failed: ${e}`,
  )
  await Promise.race([invoke, sleep(START_TIMINGS.answerWaitMs)])
  process.stdout.write(`${JSON.stringify({ answeredAt: Date.now(), t0 })}\n`)
  process.kill(process.pid, 'SIGSTOP') // the handler returned: the environment is frozen
  const outcome = await invoke
  process.stdout.write(`${JSON.stringify({ settledAt: Date.now(), outcome })}\n`)
}

async function main() {
  const arrivals: number[] = []
  const server = createServer((req, res) => {
    // The invoker's warm-up at its cold start (src/on-demand/start/lambda-invoker.ts): answered as Lambda does, not
    // counted.
    if (req.headers['x-amz-invocation-type'] === 'DryRun')
      return void req.resume().on('end', () => res.writeHead(204).end())
    arrivals.push(Date.now())
    req.resume()
    setTimeout(() => res.writeHead(202).end(), ANSWER_AFTER_MS)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const samples: {
    reachedWhileFrozen: boolean
    reachedAfterMs: number | null
    settledAfterThawMs: number
    outcome: string
  }[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const before = arrivals.length
    const proc = spawn(process.execPath, [...process.execArgv, process.argv[1]!, CHILD, endpoint], {
      env: { ...process.env, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const lines: Record<string, unknown>[] = []
    proc.stdout.setEncoding('utf8').on('data', (d: string) => {
      for (const l of d.split('\n').filter(Boolean)) lines.push(JSON.parse(l))
    })
    while (lines.length === 0) await sleep(5)
    await sleep(FROZEN_MS)
    const reachedWhileFrozen = arrivals.length > before
    const thawedAt = Date.now()
    proc.kill('SIGCONT')
    await new Promise((r) => proc.on('exit', r))
    const settled = lines[1] as { settledAt: number; outcome: string }
    const { t0 } = lines[0] as { t0: number }
    samples.push({
      reachedWhileFrozen,
      reachedAfterMs: arrivals.length > before ? arrivals[before]! - t0 : null,
      settledAfterThawMs: settled.settledAt - thawedAt,
      outcome: settled.outcome,
    })
  }
  server.close()
  console.log(
    JSON.stringify(
      {
        samples: SAMPLES,
        answerWaitMs: START_TIMINGS.answerWaitMs,
        endpointAnswersAfterMs: ANSWER_AFTER_MS,
        reachedEndpointBeforeThaw: samples.filter((s) => s.reachedWhileFrozen).length,
        /** From the invoke's start to its request at the endpoint (null: it never got there). */
        reachedAfterMs: samples.map((s) => s.reachedAfterMs),
        outcomes: samples.map((s) => s.outcome),
        settledAfterThawMs: samples.map((s) => s.settledAfterThawMs),
      },
      null,
      2,
    ),
  )
}

const at = process.argv.indexOf(CHILD)
runMain(() => (at > 0 ? child(process.argv[at + 1]!) : main()))
