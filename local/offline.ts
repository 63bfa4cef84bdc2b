// serverless-offline as a child process (the API on an HTTP port, every function behind the Lambda endpoint).
// Direct invocations through that endpoint (how the local stack plays EventBridge and the SQS event source mapping)
// are tools/sdq-poll/invoke-function.ts: the published sdq-poll makes them too.
import { spawn, type ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { freePort, onFreshPorts, PortTakenError } from './ports'
import { slsBin } from './service-config'

export interface OfflineOptions {
  root: string
  stage: string
  httpPort: number
  lambdaPort: number
  /** Ports of listeners this stack does not use; they must not collide with anything either. */
  websocketPort: number
  albPort: number
  /** Handlers see only what serverless.yml declares; these feed its ${env:...} variables. */
  env: NodeJS.ProcessEnv
  /** Every line serverless-offline and the handlers print (default: this process's stdout). */
  onOutput?: (line: string) => void
  readyTimeoutMs?: number
}

export interface Offline {
  apiUrl: string
  lambdaUrl: string
  process: ChildProcess
  stop(): Promise<void>
}

export async function startOffline(options: OfflineOptions): Promise<Offline> {
  const { root, stage, httpPort, lambdaPort } = options
  // Its own esbuild work folder: a parallel `serverless package` or a second stack cleans up only its own.
  const workFolder = `.esbuild/offline-${process.pid}-${httpPort}`
  const args = [
    // Its ports answer loopback Hosts and callers without a foreign Origin only (local/offline-guard-preload.mjs).
    '--import',
    pathToFileURL(resolve(root, 'local/offline-guard-preload.mjs')).href,
    slsBin(root),
    'offline',
    'start',
    '--stage',
    stage,
    '--host',
    '127.0.0.1',
    '--noPrependStageInUrl',
    '--noSponsor',
    // serverless-offline's own timeout runs from before a cold worker thread starts and loads the bundled handler, so
    // on a loaded machine a cold start alone passed the API's 10 s and the request failed (answered 200, see
    // local/lambda-error-answer.ts). Lambda counts its init phase apart from the function's timeout. Off here: the
    // handlers keep to their timeout from the start of the invocation themselves (the API's middy answers before it,
    // the scan and the consumers stop by context.getRemainingTimeInMillis, which serverless-offline still gives).
    '--noTimeout',
    '--httpPort',
    String(httpPort),
    '--lambdaPort',
    String(lambdaPort),
    '--websocketPort',
    String(options.websocketPort),
    '--albPort',
    String(options.albPort),
  ]
  // A process group of its own (esbuild runs a service process under it): stop() ends the whole group.
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...options.env, SDQ_ESBUILD_WORK_FOLDER: workFolder, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const print = options.onOutput ?? ((line: string) => process.stdout.write(`${line}\n`))
  let ready!: () => void
  const readyLine = new Promise<void>((ok) => (ready = ok))
  // For the error when it exits before it is ready: its last lines, and the one naming a port it could not bind
  // (esbuild's service may print a goroutine dump after it, as serverless-offline goes down).
  const tail: string[] = []
  let portTaken: string | undefined
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffered = ''
    stream.on('data', (chunk) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        print(line)
        tail.push(line)
        if (tail.length > 12) tail.shift()
        if (!portTaken && /EADDRINUSE|address already in use/i.test(line)) portTaken = line.trim()
        if (line.includes('Server ready:')) ready()
      }
    })
  }
  const exited = new Promise<never>((_, fail) => {
    child.once('error', fail)
    // 'close', not 'exit': a child's last lines may still be in its pipes when it has exited
    child.once('close', (code, signal) => {
      const what = `serverless offline exited (${code ?? signal}) before it was ready`
      if (portTaken) fail(new PortTakenError(`${what}: ${portTaken}`))
      else fail(new Error(`${what}; its last lines:\n${tail.join('\n')}`))
    })
  })
  const timeoutMs = options.readyTimeoutMs ?? 120_000
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`serverless offline was not ready after ${timeoutMs} ms`)), timeoutMs)
  })

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((ok) => child.once('exit', () => ok()))
      killGroup(child, 'SIGTERM')
      const force = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000)
      await gone
      clearTimeout(force)
    }
    rmSync(resolve(root, workFolder), { recursive: true, force: true })
  }

  try {
    await Promise.race([readyLine, exited, timeout])
  } catch (error) {
    await stop()
    throw error
  } finally {
    clearTimeout(timer)
  }
  exited.catch(() => {}) // after readiness, an exit is reported by the caller's own checks
  return { apiUrl: `http://127.0.0.1:${httpPort}`, lambdaUrl: `http://127.0.0.1:${lambdaPort}`, process: child, stop }
}

/**
 * serverless-offline on free ports (the Lambda endpoint's may be given): it binds them only seconds after they were
 * picked, long enough for another process to take one, so a start that found a port taken picks new ones (3 tries).
 * `env` builds the handlers' environment from the Lambda endpoint's port.
 */
export async function startOfflineOnFreePorts(
  options: Omit<OfflineOptions, 'httpPort' | 'lambdaPort' | 'websocketPort' | 'albPort' | 'env'> & {
    lambdaPort?: number
    env: (lambdaPort: number) => NodeJS.ProcessEnv
  },
): Promise<Offline & { env: NodeJS.ProcessEnv }> {
  return onFreshPorts(async () => {
    const [httpPort, lambdaPort, websocketPort, albPort] = await Promise.all([
      freePort(),
      options.lambdaPort || freePort(),
      freePort(),
      freePort(),
    ])
    const env = options.env(lambdaPort)
    return { ...(await startOffline({ ...options, httpPort, lambdaPort, websocketPort, albPort, env })), env }
  })
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    child.kill(signal)
  }
}
