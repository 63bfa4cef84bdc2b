// One redis-server process (a node or a sentinel), ready only once *it* listens on its port. A port picked free by
// freePort() is released before the child binds it, so another process can take it in between: the child then
// exits with "Address already in use" while a bare "does the port accept connections" check, answered by the other
// process, called it ready.
import { sleep } from '../devkit/sleep'
import { spawn, type ChildProcess } from 'node:child_process'
import { trackChild } from './child-registry'
import { acceptsConnections, PortTakenError } from './ports'

/** redis-server prints this once it has bound its port, in every mode (standalone, cluster, sentinel). */
const BOUND = /Running mode=\w+, port=\d+/

/**
 * Spawns `redis-server args` and resolves once it has reported binding `port` and the port accepts connections.
 * Rejects (the child stopped) when it exits first, with the end of its log; `PortTakenError` when the port was taken.
 */
export async function spawnRedisProcess(args: string[], port: number, what: string): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  trackChild(child, what)
  // Read the log for as long as the process lives: a pipe nobody reads would block its writes once full.
  let log = ''
  let bound = false
  const keep = (d: Buffer) => {
    log = (log + d.toString()).slice(-4_000)
    if (!bound && BOUND.test(log)) bound = true
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new Error('redis-server was not found on PATH. Install it: apt-get install -y redis-server')
          : err,
      ),
    )
    // 'close', not 'exit': its last lines (the bind error among them) may still be in its pipes when it has exited
    child.once('close', (code) => {
      const tail = log.trim().split('\n').slice(-3).join(' | ')
      const Failure = /Address already in use/.test(log) ? PortTakenError : Error
      reject(new Failure(`${what} exited (${code}) before it was ready: ${tail}`))
    })
  })
  const ready = async () => {
    const deadline = Date.now() + 10_000
    while (!(bound && (await acceptsConnections(port)))) {
      if (Date.now() > deadline) throw new Error(`${what} did not listen on 127.0.0.1:${port} within 10 s: ${log}`)
      await sleep(20)
    }
  }
  try {
    await Promise.race([ready(), exited])
    return child
  } catch (e) {
    // Not ready: a redis-server still starting must not outlive the failed start.
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((r) => {
        child.once('exit', r)
        child.kill('SIGKILL')
      })
    }
    throw e
  }
}
