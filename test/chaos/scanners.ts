// Scanner processes for the chaos run: bundled once the way Lambda gets the code, each with its own environment
// (through Sentinel, or through its own partitionable primary endpoint), killed, paused, restarted and skewed by the
// nemesis. stopAll() ends every one of them, also after a failure.
import type { ChildProcess } from 'node:child_process'
import { stopChild } from '../../local/redis-server'
import type { EnvironmentFault, SendStart } from './history'
import type { PrimaryProxy } from './primary-proxy'
import { startProcess } from './processes'

export interface ChaosScanner {
  name: string
  /** Its own primary endpoint, when it does not go through Sentinel (then it can be partitioned). */
  proxy?: PrimaryProxy
  env: Record<string, string>
  child?: ChildProcess
  /** Set while a fault owns it (killed, paused, restarting): other faults leave it alone. */
  busy: boolean
  /** Where its sends that SQS may have taken without answering are recorded, as it prints them (shared by all). */
  environment: EnvironmentFault[]
  /** Where its flow-keyed jobs' send starts are recorded (shared by all). */
  sendStarts: SendStart[]
}

/** Starts (or restarts) the scanner's process; resolves once it is connected and scanning. */
export async function startScanner(s: ChaosScanner, extraEnv: Record<string, string> = {}): Promise<void> {
  // Its clock runs this far ahead of the runner's (test/chaos/clock-skew.ts): its times are taken back by as much.
  const skew = Number({ ...s.env, ...extraEnv }.CLOCK_SKEW_MS ?? 0)
  const onLine = (line: Record<string, unknown>) => {
    if (line.event === 'sent')
      return void s.sendStarts.push({ jobId: String(line.id), at: Number(line.at) - skew, scanner: s.name })
    const count = Number(line.event === 'unanswered' ? line.entries : line.jobs)
    if ((line.event === 'unanswered' || line.event === 'maybe-sent') && count > 0)
      s.environment.push({ kind: line.event, at: Date.now(), scanner: s.name, count })
  }
  s.child = (await startProcess('scanner-entry', { ...s.env, ...extraEnv }, onLine)).child
}

export function kill9(s: ChaosScanner): Promise<void> {
  const child = s.child
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((ok) => {
    child.once('exit', () => ok())
    child.kill('SIGKILL')
  })
}

export function signal(s: ChaosScanner, sig: 'SIGSTOP' | 'SIGCONT'): void {
  if (s.child && s.child.exitCode === null && s.child.signalCode === null) s.child.kill(sig)
}

export async function stopAll(scanners: ChaosScanner[]): Promise<void> {
  await Promise.all(
    scanners.map(async (s) => {
      signal(s, 'SIGCONT')
      if (s.child) await stopChild(s.child)
    }),
  )
}
