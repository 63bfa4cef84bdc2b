// A Lambda function's size on this machine: a cgroup (v1) that gives a process the CPU share and the memory Lambda
// gives a function of that size. Lambda grants one vCPU at 1,769 MB and CPU in proportion below that, and stops a
// function that goes over its memory. Here: a CFS quota of (size / 1,769) of one CPU per 100 ms period, and a
// memory limit of the size, past which the kernel's OOM killer ends the process. Needs root and cgroup v1 mounted
// at /sys/fs/cgroup (true on the bench machines; `available()` says).
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = '/sys/fs/cgroup'
const MB_PER_VCPU = 1769
const PERIOD_US = 100_000

export interface CgroupFigures {
  /** CPU time the group used (cpu.stat of cpuacct is a separate hierarchy: from the cpu controller's throttling). */
  periods: number
  throttledPeriods: number
  throttledMs: number
  /** Peak memory of the group (page cache included, as Lambda counts it), MB. */
  peakMemoryMb: number
  /** Times the limit was hit; an OOM kill shows as the process dying by SIGKILL. */
  limitHits: number
}

export class LambdaCgroup {
  private readonly cpu: string
  private readonly memory: string

  constructor(
    name: string,
    readonly memoryMb: number,
  ) {
    this.cpu = join(ROOT, 'cpu', name)
    this.memory = join(ROOT, 'memory', name)
    mkdirSync(this.cpu, { recursive: true })
    mkdirSync(this.memory, { recursive: true })
    writeFileSync(join(this.cpu, 'cpu.cfs_period_us'), String(PERIOD_US))
    writeFileSync(join(this.cpu, 'cpu.cfs_quota_us'), String(Math.round((memoryMb / MB_PER_VCPU) * PERIOD_US)))
    writeFileSync(join(this.memory, 'memory.limit_in_bytes'), String(memoryMb * 2 ** 20))
  }

  static available(): boolean {
    try {
      const probe = join(ROOT, 'cpu', `sdq-probe-${process.pid}`)
      mkdirSync(probe)
      rmdirSync(probe)
      return existsSync(join(ROOT, 'memory', 'memory.limit_in_bytes'))
    } catch {
      return false
    }
  }

  /** `sh -c` that moves itself into the group, then execs the command: the command starts inside it. */
  wrap(command: string, args: string[]): { command: string; args: string[] } {
    const enter = `echo $$ > ${join(this.cpu, 'cgroup.procs')} && echo $$ > ${join(this.memory, 'cgroup.procs')} && exec "$@"`
    return { command: 'sh', args: ['-c', enter, 'sh', command, ...args] }
  }

  figures(): CgroupFigures {
    const stat = Object.fromEntries(
      readFileSync(join(this.cpu, 'cpu.stat'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]),
    )
    return {
      periods: Number(stat.nr_periods),
      throttledPeriods: Number(stat.nr_throttled),
      throttledMs: Number(stat.throttled_time) / 1e6,
      peakMemoryMb: Number(readFileSync(join(this.memory, 'memory.max_usage_in_bytes'), 'utf8')) / 2 ** 20,
      limitHits: Number(readFileSync(join(this.memory, 'memory.failcnt'), 'utf8')),
    }
  }

  /** Removes the group (its processes must have ended). */
  remove(): void {
    for (const dir of [this.cpu, this.memory]) {
      try {
        rmdirSync(dir)
      } catch {
        // already gone, or a process is still in it: the caller kills it first
      }
    }
  }
}
