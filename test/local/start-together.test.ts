// Local processes started side by side: a failed start stops the ones that did start (nothing outlives a failed setup).
import { describe, expect, it } from 'vitest'
import { startTogether } from '../../local/start-together'

function fakeProcess(name: string, log: string[]) {
  return { name, stop: async () => void log.push(`stopped ${name}`) }
}

describe('startTogether', () => {
  it('returns every started process, in order, when all start', async () => {
    const log: string[] = []
    const [a, b] = await startTogether(
      Promise.resolve(fakeProcess('redis', log)),
      Promise.resolve(fakeProcess('sqs', log)),
    )
    expect([a.name, b.name]).toEqual(['redis', 'sqs'])
    expect(log).toEqual([])
  })

  it('stops the processes that started when another fails, then throws its error', async () => {
    // prepare: redis starts, the SQS endpoint exits before it is ready
    const log: string[] = []
    const redis = Promise.resolve(fakeProcess('redis', log))
    const sqs = Promise.reject(new Error('the SQS endpoint exited (1) before it was ready'))
    // act + assess
    await expect(startTogether(redis, sqs)).rejects.toThrow('exited (1) before it was ready')
    expect(log).toEqual(['stopped redis'])
  })
})
