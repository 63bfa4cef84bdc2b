// Child-process entry for the local SQS endpoint: `node local/sqs-endpoint-main.mjs [port]`.
import { startFauxqs } from 'fauxqs'

const server = await startFauxqs({ port: Number(process.argv[2] ?? 0), logger: false })
process.stdout.write(`listening ${server.port}\n`)
const stop = () => server.stop().finally(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
