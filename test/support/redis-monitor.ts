// Every command a redis-server runs, as MONITOR shows it, for tests that assert what reached Redis (a script's
// writes, a WAIT after each script). Read from a plain socket, not ioredis's monitor(): ioredis switches a connection
// to monitor mode only after MONITOR's +OK has been handed to a promise, so a line that arrives in the same read as
// the +OK (another client's command, e.g. an engine's INFO) meets an empty command queue: "Command queue state
// error" (a loaded run of the suite; the same report in BullMQ's issue tracker, #2505).
import { createConnection, type Socket } from 'node:net'

/** One command as MONITOR printed it: its time, its arguments (the command first) and the client that sent it. */
export interface Monitored {
  time: string
  args: string[]
  source: string
}

export interface RedisMonitor {
  /** Calls `listener` with each command from now on. */
  on(listener: (command: Monitored) => void): void
  stop(): void
}

/**
 * Connects to 127.0.0.1:`port`, sends MONITOR and resolves once the server has answered +OK. Commands that come before
 * the first listener (in the same read as the +OK, say) are kept for it.
 */
export function monitorRedis(port: number, host = '127.0.0.1'): Promise<RedisMonitor> {
  return new Promise((resolve, reject) => {
    const socket: Socket = createConnection({ host, port })
    const listeners: ((command: Monitored) => void)[] = []
    const early: Monitored[] = []
    let buffered = ''
    let started = false
    const fail = (error: Error) => {
      socket.destroy()
      reject(error)
    }
    socket.setEncoding('latin1')
    socket.once('error', fail)
    socket.once('close', () => started || fail(new Error(`MONITOR on :${port}: the connection closed before +OK`)))
    socket.on('connect', () => socket.write('MONITOR\r\n'))
    socket.on('data', (chunk: string) => {
      buffered += chunk
      for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        if (!started) {
          if (line !== '+OK') return fail(new Error(`MONITOR on :${port} answered ${line}`))
          started = true
          resolve({
            on: (listener) => {
              listeners.push(listener)
              for (const command of early.splice(0)) listener(command)
            },
            stop: () => socket.destroy(),
          })
          continue
        }
        const command = parseMonitorLine(line)
        if (!command) continue
        if (listeners.length === 0) early.push(command)
        for (const listener of listeners) listener(command)
      }
    })
  })
}

/**
 * `+1795696420.424799 [0 127.0.0.1:37976] "evalsha" "ab\"c" "\x00"` → its time, source and unquoted arguments (the line
 * read as latin1, one character a byte; each argument decoded as UTF-8).
 */
export function parseMonitorLine(line: string): Monitored | null {
  const head = /^\+(\S+) \[\d+ ([^\]]+)\] /.exec(line)
  if (!head) return null
  const args: string[] = []
  let i = head[0].length
  while (i < line.length) {
    if (line[i] !== '"') {
      i++
      continue
    }
    let arg = ''
    for (i++; i < line.length && line[i] !== '"'; i++) {
      if (line[i] !== '\\') {
        arg += line[i]
        continue
      }
      const next = line[++i]
      if (next === 'x') {
        arg += String.fromCharCode(Number.parseInt(line.slice(i + 1, i + 3), 16))
        i += 2
      } else arg += ({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' } as Record<string, string>)[next!] ?? next
    }
    args.push(Buffer.from(arg, 'latin1').toString('utf8'))
    i++
  }
  return { time: head[1]!, args, source: head[2]! }
}
