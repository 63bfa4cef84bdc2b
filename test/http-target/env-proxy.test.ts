// The guard checks the address the forwarder connects to; a proxy would connect elsewhere, to whatever the job names.
// So the forwarder's calls never go through a proxy of the environment, even with Node's own switch for it on
// (NODE_USE_ENV_PROXY=1 with HTTP_PROXY / HTTPS_PROXY, read when the process starts: a child process here). The proxy
// and the receiver are recorders on loopback; the name resolves through a resolver of the child's own.
import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenOnLoopback, type LoopbackServer } from '../../devkit/loopback-server'

const proxied: string[] = []
const received: string[] = []
let proxy: LoopbackServer
let receiver: LoopbackServer
beforeAll(async () => {
  proxy = await listenOnLoopback(createServer((req, res) => res.end(void proxied.push(String(req.url)))))
  receiver = await listenOnLoopback(createServer((req, res) => res.end(void received.push(String(req.url)))))
})
afterAll(async () => {
  await proxy?.close()
  await receiver?.close()
})

const src = (file: string) => fileURLToPath(new URL(`../../src/http-target/${file}`, import.meta.url))

/** One call from a fresh process with the proxy settings; answers the status it got. */
function callFromChild(url: string): Promise<string> {
  const script = `
    const { createSender } = await import(${JSON.stringify(src('send-request.ts'))})
    const { addressPolicy } = await import(${JSON.stringify(src('address-policy.ts'))})
    const sender = createSender(async () => [{ address: '127.0.0.1', family: 4 }], addressPolicy({ allowLoopback: true }))
    const answer = await sender.send({ url: new URL(${JSON.stringify(url)}), method: 'POST', headers: {} },
      { connectTimeoutMs: 2000, totalTimeoutMs: 5000 })
    sender.close()
    console.log(answer.status)`
  const env = { ...process.env, NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '' }
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { env, timeout: 20_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout.trim())),
    ),
  )
}

describe('proxies of the environment', () => {
  it('are not used by the forwarder: the call goes to the checked address itself', async () => {
    // act
    const status = await callFromChild(`http://hooks.test:${receiver.port}/direct`)
    // assess
    expect(status).toBe('200')
    expect(received).toEqual(['/direct'])
    expect(proxied).toEqual([])
  })
})
