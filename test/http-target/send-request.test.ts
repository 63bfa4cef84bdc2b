// One call's answer when the receiver stalls after its status line: the status is the answer. A receiver that says
// 200 and then never ends its body has taken the delivery; cutting it as a timeout would retry it and deliver twice.
// A receiver on loopback, reached through a resolver of the test's own.
import { createServer } from 'node:http'
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressPolicy } from '../../src/http-target/address-policy'
import { DeliveryTimeoutError } from '../../src/http-target/errors'
import { createSender } from '../../src/http-target/send-request'
import { listenOnLoopback, type LoopbackServer } from '../../devkit/loopback-server'

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

// A receiver in a worker thread: it keeps answering while the test's own thread is stalled (Atomics.wait: blocked, no
// CPU spent). It says when a request arrived, and answers 50 ms later.
const WORKER = `
  const { parentPort } = require('node:worker_threads')
  const server = require('node:http').createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      parentPort.postMessage('arrived')
      setTimeout(() => res.end('taken'), 50)
    })
  })
  server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port))
`

describe('an answer after a stalled event loop', () => {
  it('is read before the timeout is decided: an answer that came in time is not a timeout (and a second delivery)', async () => {
    // prepare: a 300 ms call; this thread stalls 1 s right after the request arrived, and the answer comes meanwhile
    const worker = new Worker(WORKER, { eval: true })
    try {
      const [port] = (await once(worker, 'message')) as [number]
      const s = sender()
      const arrived = once(worker, 'message')
      // act
      const sent = s.send(
        { url: new URL(`http://hooks.test:${port}/`), method: 'POST', headers: {} },
        { connectTimeoutMs: 300, totalTimeoutMs: 300 },
      )
      await arrived
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000)
      // assess
      await expect(sent).resolves.toMatchObject({ status: 200, excerpt: 'taken' })
      s.close()
    } finally {
      await worker.terminate()
    }
  })
})
