// Starts a private redis-server on a free loopback port (tests, bench, `npm run dev`).
import { sleep } from '../devkit/sleep'
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { acceptsConnections, freePort, onFreshPorts } from './ports'
import { spawnRedisProcess } from './redis-process'

export interface LocalRedis {
  url: string
  port: number
  process: ChildProcess
  stop(): Promise<void>
}

export interface LocalRedisOptions {
  /** Keep data across restarts with AOF (dev stack); tests run in memory only. */
  dataDir?: string
  port?: number
  extraArgs?: string[]
}

export async function startRedis(options: LocalRedisOptions = {}): Promise<LocalRedis> {
  // A port we picked may be taken before the server binds it: then another (a port asked for stays an error).
  return options.port === undefined ? onFreshPorts(() => startOnce(options)) : startOnce(options)
}

async function startOnce(options: LocalRedisOptions): Promise<LocalRedis> {
  const port = options.port ?? (await freePort())
  // A replica's full sync starts at once: Redis waits 5 s by default (repl-diskless-sync-delay) for more replicas to
  // share the transfer, which on loopback only delays every test that starts a replica.
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--repl-diskless-sync-delay', '0']
  let cleanUp = () => {}
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true })
    args.push('--dir', options.dataDir, '--appendonly', 'yes', '--appendfsync', 'everysec')
  } else {
    args.push('--appendonly', 'no')
    // In memory only, but a replica still writes the snapshot of its full sync to its working directory (the
    // replication tests' servers used to leave dump.rdb in the checkout): a directory of its own, gone when it exits.
    // (Cluster and Sentinel nodes pass their own.)
    if (!options.extraArgs?.includes('--dir')) {
      const scratch = mkdtempSync(join(tmpdir(), 'sdq-redis-'))
      args.push('--dir', scratch)
      cleanUp = () => {
        // (in an exit handler: a failure here must not become an uncaught exception of the caller's process)
        try {
          rmSync(scratch, { recursive: true, force: true })
        } catch {}
      }
    }
  }
  args.push(...(options.extraArgs ?? []))
  let child: ChildProcess
  try {
    child = await spawnRedisProcess(args, port, `redis-server :${port}`)
  } catch (e) {
    cleanUp()
    throw e
  }
  child.once('exit', cleanUp)
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: child,
    stop: () => stopChild(child),
  }
}

export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill(signal)
  })
}

export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await acceptsConnections(port)) return
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`)
    await sleep(50)
  }
}
