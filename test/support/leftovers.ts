// Fails the run when a process a test started outlives it (a redis-server, a sentinel, fauxqs, a scanner worker).
//
// How a test's processes are recognised: the vitest configs give every test worker the variable SDQ_TEST_RUN (one
// value per run). The local/ helpers note each server they start under it (local/child-registry.ts: redis-server
// overwrites its environment for its process title), and other children inherit it in their environment (the fault
// harness passes it on to scanner workers explicitly). The servers the global setups start run in the main vitest
// process, which does not have it: they are not counted. At the end of the run this check stops whatever of this
// run is still alive, and throws, naming it.
import { sleep } from '../../devkit/sleep'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { registryFile, startTimeOf } from '../../local/child-registry'

export const RUN_MARKER = 'SDQ_TEST_RUN'

/** The marker for a child spawned with an explicit environment. */
export function runMarker(): Record<string, string> {
  const value = process.env[RUN_MARKER]
  return value ? { [RUN_MARKER]: value } : {}
}

export interface Leftover {
  pid: number
  command: string
}

/** Processes of this run still alive: noted in its registry, or carrying `SDQ_TEST_RUN=<runId>` in their environment. */
export function findLeftovers(runId: string): Leftover[] {
  const found = registered(runId)
  for (const other of marked(runId)) if (!found.some((f) => f.pid === other.pid)) found.push(other)
  return found
}

function registered(runId: string): Leftover[] {
  let lines: string[]
  try {
    lines = readFileSync(registryFile(runId), 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
  const alive: Leftover[] = []
  for (const line of lines) {
    const [pid, started, ...what] = line.split(' ')
    // The same pid with another start time is a new process that reused the number: not ours.
    if (startTimeOf(Number(pid)) === started) alive.push({ pid: Number(pid), command: what.join(' ') })
  }
  return alive
}

function marked(runId: string): Leftover[] {
  const needle = `${RUN_MARKER}=${runId}\0`
  const found: Leftover[] = []
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    try {
      if (!`${readFileSync(`/proc/${pid}/environ`, 'latin1')}\0`.includes(needle)) continue
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim()
      if (isZombie(pid) || isTestWorker(command)) continue
      found.push({ pid, command })
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found
}

/** vitest's own fork workers carry the marker too: they may still be closing when teardown runs. */
const isTestWorker = (command: string) => /vitest|tinypool/.test(command)

const isZombie = (pid: number) => /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'))

export async function assertNoLeftovers(runId: string, graceMs = 2_000): Promise<void> {
  // A process stopped at the very end of a test may need a moment to exit.
  const deadline = Date.now() + graceMs
  let leftovers = findLeftovers(runId)
  while (leftovers.length && Date.now() < deadline) {
    await sleep(100)
    leftovers = findLeftovers(runId)
  }
  rmSync(registryFile(runId), { force: true })
  if (!leftovers.length) return
  for (const { pid } of leftovers) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // exited meanwhile
    }
  }
  throw new Error(
    `processes started by tests outlived them (now killed; stop what you start, also on failure):\n${leftovers
      .map((l) => `  pid ${l.pid}: ${l.command}`)
      .join('\n')}`,
  )
}
