// The chaos run's API process: the real API handler (test/chaos/api-server.ts) on the environment it is given,
// bundled whole the way the API Lambda is (middy is ESM-only). Prints {"event":"ready","url":...} once it listens.
import { startApi } from './api-server'

startApi(process.env as Record<string, string>).then(
  (api) => {
    process.stdout.write(`${JSON.stringify({ event: 'ready', url: api.url })}\n`)
    process.on('SIGTERM', () => {
      api.close().finally(() => process.exit(0))
    })
  },
  (e) => {
    process.stderr.write(`${String(e)}\n`)
    process.exit(1)
  },
)
