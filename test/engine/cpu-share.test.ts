// The scan function's CPU use against the share Lambda gives its memory size (src/scan/observe/cpu-share.ts).
import { describe, expect, it } from 'vitest'
import { CpuShareMeter } from '../../src/scan/observe/cpu-share'

/** A clock that reads these CPU and wall times (ms), one per call. */
function clock(cpu: number[], wall: number[]) {
  return { cpuMs: () => cpu.shift()!, wallMs: () => wall.shift()! }
}

describe('CPU share meter', () => {
  it('reports each interval against the share of the size, one vCPU from 1,769 MB on', () => {
    // 512 MB is 0.2894 vCPU: 58 ms of CPU in a second is 20% of it; at 3,538 MB (capped at one vCPU) 500 ms is 50%
    const meter = new CpuShareMeter(512, clock([0, 58, 58], [0, 1_000, 2_000]))
    expect(meter.take()).toBeCloseTo(20.04, 1)
    expect(meter.take()).toBe(0)
    expect(new CpuShareMeter(3_538, clock([0, 500], [0, 1_000])).take()).toBe(50)
  })

  it('has nothing to say about an empty interval', () => {
    expect(new CpuShareMeter(512, clock([0, 0], [5, 5])).take()).toBeNull()
  })

  it('exists on Lambda only: made from AWS_LAMBDA_FUNCTION_MEMORY_SIZE', () => {
    expect(CpuShareMeter.fromEnv({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512' })?.memoryMb).toBe(512)
    expect(CpuShareMeter.fromEnv({})).toBeUndefined()
    expect(CpuShareMeter.fromEnv({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: 'big' })).toBeUndefined()
  })
})
