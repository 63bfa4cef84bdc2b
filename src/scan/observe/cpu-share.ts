// How much of its CPU share the scan function uses. Lambda gives a function CPU in proportion to its memory (one
// vCPU at 1,769 MB) and enforces it as a quota: a scan that uses much of it gets throttled, and jobs that fall due
// while it waits are late. Measured on this bench machine under Lambda's quota (docs/cost.md "Right-sizing"), a
// steady stream kept its p99 lateness near 10 ms up to about 40% of the share. The metric ScanCpuSharePercent lets
// an operator see that figure for the deployed size and traffic, and raise `scanMemory` before lateness shows it.

/** Lambda's CPU: one vCPU at this much memory, in proportion below it. */
export const MB_PER_VCPU = 1769

/** The vCPUs Lambda gives a function of this memory size (the cost model and the benches use it too). */
export function vcpuShare(memoryMb: number): number {
  return Math.min(1, memoryMb / MB_PER_VCPU)
}

type CpuClock = { cpuMs(): number; wallMs(): number }

const processClock: CpuClock = {
  cpuMs: () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  },
  wallMs: () => performance.now(),
}

export class CpuShareMeter {
  private lastCpu: number
  private lastWall: number

  constructor(
    readonly memoryMb: number,
    private readonly clock: CpuClock = processClock,
  ) {
    this.lastCpu = clock.cpuMs()
    this.lastWall = clock.wallMs()
  }

  /** On Lambda (AWS_LAMBDA_FUNCTION_MEMORY_SIZE set), a meter for the function's size; elsewhere none. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): CpuShareMeter | undefined {
    const mb = Number(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE)
    return Number.isFinite(mb) && mb > 0 ? new CpuShareMeter(mb) : undefined
  }

  /** Percent of the share used since the last call (or since the meter was made); null for an empty interval. */
  take(): number | null {
    const [cpu, wall] = [this.clock.cpuMs(), this.clock.wallMs()]
    const used = cpu - this.lastCpu
    const elapsed = wall - this.lastWall
    this.lastCpu = cpu
    this.lastWall = wall
    if (elapsed <= 0) return null
    return (100 * used) / (elapsed * vcpuShare(this.memoryMb))
  }
}
