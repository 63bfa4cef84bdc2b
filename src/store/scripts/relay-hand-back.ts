// lua/relay-hand-back.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order). Its reply is 1 or 0; the relay does not read it.
import type { ScriptCall } from '../scripts'

/** lua/relay-hand-back.lua: 1 when the relay key held `owner` and was given back to `predecessor`, else 0. */
export function relayHandBackCall(relayKey: string, owner: string, predecessor: string | null): ScriptCall<number> {
  return { script: 'sdqRelayHandBack', keys: { relay: relayKey }, args: { owner, predecessor: predecessor ?? '' } }
}
