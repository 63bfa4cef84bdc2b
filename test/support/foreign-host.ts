// Another host on this machine, for tests of what listens on loopback only: a network namespace joined to this one by
// a veth pair, with addresses from 198.18.0.0/15 (the range set aside for network tests). A connection from it
// comes in on a non-loopback interface to a non-loopback address, like one from another machine; a server bound to
// 127.0.0.1 refuses it, one bound to 0.0.0.0 takes it. Needs root and iproute2 (`ip`); the namespace and the link
// are this process's own (named after its pid), and all traffic stays between them.
import { execFile } from 'node:child_process'
import { createServer } from 'node:net'
import { afterAll, beforeAll } from 'vitest'

export interface ForeignHost {
  /** This machine's address on the link to the other host: local, but not loopback. */
  hostAddress: string
  /** A TCP connect from the other host: 'connected', 'refused', or what else happened. */
  connectFrom(address: string, port: number): Promise<string>
  /** Removes the namespace and the link; safe to call twice, and after a half-made start. */
  remove(): Promise<void>
}

const ip = (...args: string[]) =>
  new Promise<string>((ok, fail) =>
    execFile('ip', args, { timeout: 10_000 }, (error, stdout, stderr) =>
      error ? fail(new Error(`ip ${args.join(' ')}: ${stderr.trim() || error.message}`)) : ok(stdout),
    ),
  )

/** Connects and says how it went, within 3 s; run as a script with `node -e` inside the namespace. */
const PROBE = `
const s = require('node:net').connect(Number(process.argv[2]), process.argv[1])
s.setTimeout(3000, () => { console.log('timed out'); process.exit(0) })
s.on('connect', () => { console.log('connected'); s.destroy() })
s.on('error', (e) => console.log(e.code === 'ECONNREFUSED' ? 'refused' : e.code || e.message))
`

export async function startForeignHost(): Promise<ForeignHost> {
  const pid = process.pid
  const ns = `sdq-foreign-${pid}`
  const [hostEnd, nsEnd] = [`sdqh${pid}`, `sdqn${pid}`]
  // A /30 of 198.18.0.0/15 picked by pid, so that parallel test files do not share one.
  const offset = (pid % 32_768) * 4
  const net = `198.${18 + (offset >> 16)}.${(offset >> 8) & 255}`
  const [hostAddress, nsAddress] = [`${net}.${(offset & 255) + 1}`, `${net}.${(offset & 255) + 2}`]
  const remove = async () => {
    // Deleting the namespace deletes its end of the pair, and with it the other end.
    await ip('netns', 'del', ns).catch(() => {})
    await ip('link', 'del', hostEnd).catch(() => {})
  }
  // A run killed before its afterAll may have left this pid's namespace behind.
  await remove()
  try {
    await ip('netns', 'add', ns)
    await ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', nsEnd)
    await ip('link', 'set', nsEnd, 'netns', ns)
    await ip('addr', 'add', `${hostAddress}/30`, 'dev', hostEnd)
    await ip('link', 'set', hostEnd, 'up')
    await ip('-n', ns, 'addr', 'add', `${nsAddress}/30`, 'dev', nsEnd)
    await ip('-n', ns, 'link', 'set', nsEnd, 'up')
    await ip('-n', ns, 'link', 'set', 'lo', 'up')
  } catch (error) {
    await remove()
    throw error
  }
  const connectFrom = async (address: string, port: number) =>
    (await ip('netns', 'exec', ns, process.execPath, '-e', PROBE, address, String(port))).trim()
  const host = { hostAddress, connectFrom, remove }
  // The path works: a listener on the host's address takes the other host's connection (so a refusal later is the
  // listener's doing, not a broken link).
  const control = createServer((s) => s.destroy())
  try {
    await new Promise<void>((ok, fail) => control.once('error', fail).listen(0, hostAddress, ok))
    const seen = await connectFrom(hostAddress, (control.address() as { port: number }).port)
    if (seen !== 'connected') throw new Error(`the other host cannot reach ${hostAddress}: ${seen}`)
  } catch (error) {
    await remove()
    throw error
  } finally {
    control.close()
  }
  return host
}

/**
 * For a beforeAll: the other host, or why there is none (no `ip`, not root). In CI its absence fails the run; a
 * developer's `npm test` skips the tests that need it, saying why.
 */
export async function foreignHostOrReason(): Promise<ForeignHost | string> {
  try {
    return await startForeignHost()
  } catch (error) {
    const why = `no second host for the loopback-only tests (${(error as Error).message}); they need root and iproute2`
    if (process.env.CI) throw new Error(why)
    console.warn(`skipping: ${why}`)
    return why
  }
}

/**
 * The other host for the tests of one file: made in its beforeAll, removed in its afterAll. `host(ctx)` skips the test
 * when there is none (outside CI only: there its absence fails the beforeAll).
 */
export function foreignHostForFile(): { host(ctx: { skip(note?: string): never }): ForeignHost } {
  let other: ForeignHost | string = 'not made yet'
  beforeAll(async () => {
    other = await foreignHostOrReason()
  }, 30_000)
  afterAll(async () => {
    if (typeof other !== 'string') await other.remove()
  })
  return {
    host(ctx) {
      if (typeof other === 'string') return ctx.skip(other)
      return other
    },
  }
}
