// lua/scanner-retire.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order), its verdicts (ScannerRetireStatus) and the reply read (decodeScannerRetire).
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

/** lua/scanner-retire.lua's verdict, the first element of its reply. */
export enum ScannerRetireStatus {
  /** The run's name is off the shard (or was not there). */
  Removed = 1,
  /** Work is due within the horizon: the run stays. */
  Kept = 0,
}

/** lua/scanner-retire.lua's reply: { ScannerRetireStatus, untilDueMs }. Read it with decodeScannerRetire. */
export type ScannerRetireReply = [number, number]

/** A retire reply, read: the run's name is off the shard, or work is due on it in `untilDueMs`. */
export type DecodedScannerRetire =
  | { status: ScannerRetireStatus.Removed }
  | { status: ScannerRetireStatus.Kept; untilDueMs: number }

/** lua/scanner-retire.lua: [1, 0] when the run's name is off the shard, [0, untilDueMs] when work is due too soon. */
export function scannerRetireCall(
  shard: ShardKeys,
  p: { owner: string; horizonMs: number; startToken: string | null },
): ScriptCall<ScannerRetireReply> {
  return {
    script: 'sdqScannerRetire',
    keys: { scanner: shard.scannerAlive, index: shard.index, inflight: shard.inflight, start: shard.scanStart },
    args: { owner: p.owner, horizonMs: p.horizonMs, token: p.startToken ?? '' },
  }
}

export function decodeScannerRetire(reply: ScannerRetireReply): DecodedScannerRetire {
  const [status, untilDueMs] = reply
  if (status === ScannerRetireStatus.Kept) return { status, untilDueMs: Number(untilDueMs) }
  return { status: ScannerRetireStatus.Removed }
}
