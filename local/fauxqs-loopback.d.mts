import type { FauxqsServer, startFauxqs } from 'fauxqs'

/** startFauxqs(options), its port bound to 127.0.0.1 only (local/fauxqs-loopback.mjs says how). */
export function startFauxqsOnLoopback(options?: Parameters<typeof startFauxqs>[0]): Promise<FauxqsServer>
