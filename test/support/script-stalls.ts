// The longest single run of a script, as Redis itself measured it: SLOWLOG on every primary, with a threshold low
// enough to see what a test cares about, set for the test and put back after it.
import { Cluster, type Redis } from 'ioredis'
import type { RedisClient, ScriptName } from '../../src/store/scripts'
import { scriptSource } from '../../src/store/scripts'

type Entry = [number, number, number, string[]]

export async function watchScriptRuns(redis: RedisClient, thresholdMicros = 2_000) {
  const primaries = redis instanceof Cluster ? redis.nodes('master') : [redis as Redis]
  const saved = await Promise.all(
    primaries.map(async (p) => {
      const [, slower] = (await p.config('GET', 'slowlog-log-slower-than')) as [string, string]
      const [, len] = (await p.config('GET', 'slowlog-max-len')) as [string, string]
      return { slower, len }
    }),
  )
  for (const p of primaries) {
    await p.config('SET', 'slowlog-log-slower-than', String(thresholdMicros))
    await p.config('SET', 'slowlog-max-len', '4096')
    await p.slowlog('RESET')
  }
  return {
    /** The longest run of each script seen (µs); scripts that never passed the threshold are absent. */
    async longest(names: readonly ScriptName[]): Promise<Partial<Record<ScriptName, number>>> {
      const bySha = new Map(names.map((n) => [scriptSource(n).sha, n]))
      const out: Partial<Record<ScriptName, number>> = {}
      for (const p of primaries) {
        for (const [, , micros, args] of (await p.slowlog('GET', 4096)) as Entry[]) {
          const name = bySha.get(String(args[1]))
          if (name && String(args[0]).toUpperCase().startsWith('EVAL')) out[name] = Math.max(out[name] ?? 0, micros)
        }
      }
      return out
    },
    /** Every run of a script past the threshold (µs), longest first. */
    async runs(name: ScriptName): Promise<number[]> {
      const sha = scriptSource(name).sha
      const out: number[] = []
      for (const p of primaries) {
        for (const [, , micros, args] of (await p.slowlog('GET', 4096)) as Entry[]) {
          if (String(args[1]) === sha) out.push(micros)
        }
      }
      return out.sort((a, b) => b - a)
    },
    async restore() {
      await Promise.all(
        primaries.map(async (p, i) => {
          await p.config('SET', 'slowlog-log-slower-than', saved[i]!.slower)
          await p.config('SET', 'slowlog-max-len', saved[i]!.len)
        }),
      )
    },
  }
}
