// A Lambda function's size on this machine: a cgroup (v1) that gives a process the CPU share and the memory Lambda
// gives a function of that size. Lambda grants one vCPU at 1,769 MB and CPU in proportion below that, and stops a
// function that goes over its memory. Here: a CFS quota of (size / 1,769) of one CPU per period, and a memory limit of
// the size, past which the kernel's OOM killer ends the process.
// What this cannot copy: Lambda's period is not published (Linux's default is 100 ms; the bench also runs 20 ms),
// and the memory cgroup charges page cache to whoever read it first, so the Node binary's pages, already cached by
// the parent, are not counted here, while Lambda counts them. Needs root and cgroup v1 mounted at /sys/fs/cgroup
// (`available()` says).
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { vcpuShare } from '../src/scan/observe/cpu-share'

const ROOT = '/sys/fs/cgroup'

export interface CgroupFigures {
  /** CPU time the group used, ms (cpuacct.usage). */
  cpuMs: number
  /** Quota periods in which the group ran, and in which it was throttled (cpu.stat). */
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
  private readonly cpuacct: string
  private readonly memory: string

  constructor(
    name: string,
    readonly memoryMb: number,
    readonly periodMs = 100,
  ) {
    this.cpu = join(ROOT, 'cpu', name)
    this.cpuacct = join(ROOT, 'cpuacct', name)
    this.memory = join(ROOT, 'memory', name)
    try {
      for (const dir of [this.cpu, this.cpuacct, this.memory]) mkdirSync(dir, { recursive: true })
      const periodUs = periodMs * 1000
      writeFileSync(join(this.cpu, 'cpu.cfs_period_us'), String(periodUs))
      writeFileSync(join(this.cpu, 'cpu.cfs_quota_us'), String(Math.round(vcpuShare(memoryMb) * periodUs)))
      writeFileSync(join(this.memory, 'memory.limit_in_bytes'), String(memoryMb * 2 ** 20))
    } catch (e) {
      this.remove()
      throw e
    }
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
    const enter = [this.cpu, this.cpuacct, this.memory].map((d) => `echo $$ > ${join(d, 'cgroup.procs')}`).join(' && ')
    return { command: 'sh', args: ['-c', `${enter} && exec "$@"`, 'sh', command, ...args] }
  }

  figures(): CgroupFigures {
    const stat = Object.fromEntries(
      readFileSync(join(this.cpu, 'cpu.stat'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]),
    )
    return {
      cpuMs: Number(readFileSync(join(this.cpuacct, 'cpuacct.usage'), 'utf8')) / 1e6,
      periods: Number(stat.nr_periods),
      throttledPeriods: Number(stat.nr_throttled),
      throttledMs: Number(stat.throttled_time) / 1e6,
      peakMemoryMb: Number(readFileSync(join(this.memory, 'memory.max_usage_in_bytes'), 'utf8')) / 2 ** 20,
      limitHits: Number(readFileSync(join(this.memory, 'memory.failcnt'), 'utf8')),
    }
  }

  /** Removes the group (its processes must have ended); says so when a directory stays. */
  remove(): void {
    for (const dir of [this.cpu, this.cpuacct, this.memory]) {
      if (!existsSync(dir)) continue
      try {
        rmdirSync(dir)
      } catch (e) {
        console.error(`cgroup ${dir} was not removed: ${e instanceof Error ? e.message : e}`)
      }
    }
  }
}
