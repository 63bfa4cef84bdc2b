// Child-process entry for the local SQS endpoint: `node local/sqs-endpoint-main.mjs [port]`.
// It listens on 127.0.0.1 only (local/fauxqs-loopback.mjs).
import { startFauxqsOnLoopback } from './fauxqs-loopback.mjs'

const server = await startFauxqsOnLoopback({ port: Number(process.argv[2] ?? 0), logger: false })
process.stdout.write(`listening ${server.port}\n`)
const stop = () => server.stop().finally(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
