// lua/scheduler-lock-release.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the
// header's order). Its reply is 1 or 0; the lock's holder does not read it.
import type { ScriptCall } from '../scripts'

/** lua/scheduler-lock-release.lua: 1 when the lock held `token` (and is gone now). */
export function lockReleaseCall(lock: string, token: string): ScriptCall<number> {
  return { script: 'sdqSchedulerLockRelease', keys: { lock }, args: { token } }
}
