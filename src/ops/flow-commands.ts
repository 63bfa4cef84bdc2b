// `sdq flow ...`: flow control from the command line (docs/flow-control.md), through DelayQueue (the API's rules).
import type { DelayQueue } from '../direct/delay-queue'
import type { FlowTarget } from '../flow/flow-names'

export const FLOW_USAGE = `  sdq flow list
  sdq flow pause --queue Q | --key K | --tag T
  sdq flow held --queue Q | --key K | --tag T [--limit N]  the due jobs the pause holds, earliest first
  sdq flow resume --queue Q | --key K | --tag T  held jobs leave in due order (at the rate, if one is set)
  sdq flow rate --queue Q | --key K <jobs/s> [--burst N] | off`

export interface FlowFlags {
  queue?: string
  key?: string
  tag?: string
  burst?: number
  limit?: number
}

/** A usage mistake: sdq prints the usage with it. */
export class FlowCommandError extends Error {}

/** Runs one flow subcommand; returns what to print, one JSON value per line. */
export async function flowCommand(
  queue: DelayQueue,
  sub: string | undefined,
  arg: string | undefined,
  flags: FlowFlags,
): Promise<unknown[]> {
  if (sub === 'list') return queue.flow.list()
  if (!['pause', 'resume', 'rate', 'held'].includes(sub ?? ''))
    throw new FlowCommandError(`unknown flow command: ${sub}`)
  const target = targetOf(flags)
  if (sub === 'held') return queue.flow.held(target, flags.limit)
  if (sub === 'pause') return [await queue.flow.pause(target)]
  if (sub === 'resume') return [await queue.flow.resume(target)]
  if (arg === 'off') return [await queue.flow.setRate(target, null)]
  if (arg === undefined || !/^\d+(\.\d+)?$/.test(arg)) {
    throw new FlowCommandError('give the rate in jobs per second (a number), or off')
  }
  return [await queue.flow.setRate(target, { rate: Number(arg), ...(flags.burst ? { burst: flags.burst } : {}) })]
}

function targetOf(flags: FlowFlags): FlowTarget {
  const named = [flags.queue, flags.key, flags.tag].filter((x) => x !== undefined)
  if (named.length !== 1) throw new FlowCommandError('name one target: --queue Q, --key K or --tag T')
  if (flags.queue !== undefined) return { queue: flags.queue }
  return flags.key !== undefined ? { flowKey: flags.key } : { tag: flags.tag! }
}
