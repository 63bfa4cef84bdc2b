// The MONITOR reader tests use to see what reached Redis (test/support/redis-monitor.ts): each command with its
// arguments as sent, escapes and all, and the client that sent it.
import { eventually } from '../support/eventually'
import { Redis } from 'ioredis'
import { describe, expect, inject, it } from 'vitest'
import { monitorRedis, parseMonitorLine, type Monitored } from '../support/redis-monitor'

describe('MONITOR reader', () => {
  it('reads a line with quotes, backslashes, control bytes and UTF-8 bytes back to the arguments sent', () => {
    expect(
      parseMonitorLine('+1795696420.424799 [0 127.0.0.1:37976] "set" "a \\"b\\" \\\\" "\\x00caf\\xc3\\xa9\\n"'),
    ).toEqual({
      time: '1795696420.424799',
      source: '127.0.0.1:37976',
      args: ['set', 'a "b" \\', '\x00café\n'],
    })
    expect(parseMonitorLine('+OK')).toBeNull()
  })

  it("sees every command of other clients, also those sent as MONITOR starts, with the sender's address", async () => {
    // prepare: a client that keeps sending INFO (as an engine's replica watch does) while the monitor starts
    const port = Number(new URL(inject('redisUrl')).port)
    const client = new Redis(port, '127.0.0.1')
    let sending = true
    const infos = (async () => {
      while (sending) await client.info('server')
    })()
    const monitor = await monitorRedis(port)
    const seen: Monitored[] = []
    monitor.on((c) => seen.push(c))
    // act
    const marker = `monitor-test-${Date.now()}`
    await client.set(marker, 'quote " and \\ and \n and é')
    await client.ping(marker)
    await eventually(() => seen.some((c) => c.args[0] === 'ping' && c.args[1] === marker))
    sending = false
    await infos
    monitor.stop()
    // assess
    const set = seen.find((c) => c.args[0] === 'set' && c.args[1] === marker)
    expect(set?.args[2]).toBe('quote " and \\ and \n and é')
    const { port: own } = client.stream.address() as { port: number }
    expect(set?.source).toBe(`127.0.0.1:${own}`)
    expect(seen.some((c) => c.args[0] === 'info')).toBe(true)
    await client.del(marker)
    client.disconnect()
  })
})
