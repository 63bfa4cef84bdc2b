// One call's answer when the receiver stalls after its status line: the status is the answer. A receiver that says
// 200 and then never ends its body has taken the delivery; cutting it as a timeout would retry it and deliver twice.
// A receiver on loopback, reached through a resolver of the test's own.
import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressPolicy } from '../../src/http-target/address-policy'
import { DeliveryTimeoutError } from '../../src/http-target/errors'
import { createSender } from '../../src/http-target/send-request'
import { listenOnLoopback, type LoopbackServer } from '../support/loopback-server'

let server: LoopbackServer
beforeAll(async () => {
  server = await listenOnLoopback(
    createServer((req, res) => {
      req.resume()
      // /stall-200: status and a first chunk, then nothing; /silent: nothing at all
      if (req.url === '/stall-200') res.writeHead(200, { 'content-type': 'text/plain' }).write('accepted, working')
      if (req.url === '/broken-200') {
        res.writeHead(200, { 'content-type': 'text/plain' }).write('accepted', () => res.socket?.destroy())
      }
    }),
  )
})
afterAll(() => server?.close())

const sender = () =>
  createSender(async () => [{ address: '127.0.0.1', family: 4 }], addressPolicy({ allowLoopback: true }))

describe('an answer cut short', () => {
  it('is the status the receiver gave when its body never ends (2xx: delivered, not retried)', async () => {
    // prepare
    const s = sender()
    const url = new URL(`http://hooks.test:${server.port}/stall-200`)
    // act
    const answer = await s.send({ url, method: 'POST', headers: {} }, { connectTimeoutMs: 300, totalTimeoutMs: 500 })
    // assess
    expect(answer).toMatchObject({ status: 200, excerpt: 'accepted, working' })
    s.close()
  })

  it('is the status the receiver gave when its body breaks off', async () => {
    const s = sender()
    const url = new URL(`http://hooks.test:${server.port}/broken-200`)
    const answer = await s.send({ url, method: 'POST', headers: {} }, { connectTimeoutMs: 300, totalTimeoutMs: 2_000 })
    expect(answer).toMatchObject({ status: 200, excerpt: 'accepted' })
    s.close()
  })

  it('is a timeout when no status came', async () => {
    const s = sender()
    const url = new URL(`http://hooks.test:${server.port}/silent`)
    await expect(
      s.send({ url, method: 'POST', headers: {} }, { connectTimeoutMs: 300, totalTimeoutMs: 500 }),
    ).rejects.toThrow(new DeliveryTimeoutError('total', 500))
    s.close()
  })
})
