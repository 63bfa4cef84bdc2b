// Notes every long-lived child a test run starts (redis-server, redis-sentinel, fauxqs), so the run can check at the
// end that none outlived its test (test/support/leftovers.ts). Only under vitest: SDQ_TEST_RUN names the run.
// redis-server rewrites its own environment area for its process title, so a marker in its environment cannot be
// read back from /proc: the list is kept here instead, with each process's start time against reused pids.
import type { ChildProcess } from 'node:child_process'
import { appendFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const registryFile = (runId: string) => join(tmpdir(), `sdq-test-run-${runId}.children`)

export function trackChild(child: ChildProcess, what: string): void {
  const runId = process.env.SDQ_TEST_RUN
  if (!runId || child.pid === undefined) return
  const started = startTimeOf(child.pid)
  if (started !== null) appendFileSync(registryFile(runId), `${child.pid} ${started} ${what}\n`)
}

/** The process's start time (clock ticks since boot, /proc/<pid>/stat field 22), or null when it is gone. */
export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (fields[0] === 'Z') return null // exited, not yet reaped
    return fields[19] ?? null
  } catch {
    return null
  }
}
