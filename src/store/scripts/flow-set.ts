// lua/flow-set.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order)
// and the reply read (decodeFlowSet: the new epoch).
import type { Keyspace } from '../keys'
import type { ScriptCall } from '../scripts'

export function flowSetCall(keys: Keyspace, field: string, value: string | null) {
  const call: ScriptCall<number> = {
    script: 'sdqFlowSet',
    keys: { settings: keys.flowSettingsKey },
    args: { field, value: value ?? '' },
  }
  return call
}

/** A setting's write, read: the settings' new epoch, as claims return it. */
export function decodeFlowSet(reply: number): string {
  return String(reply)
}
