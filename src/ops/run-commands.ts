// `sdq run` and `sdq run-due`: run pending jobs now, one by id (the same job, due now), or every one due before a time
// (of one queue, or all) or with a tag (due before a time, or all). run-due goes on step by step to the end, printing each step with the cursor it reached: a
// run stopped half way (Ctrl-C, a lost connection) goes on from the last cursor printed with --cursor.
import type { DelayQueue } from '../direct/delay-queue'

export const RUN_USAGE = `  sdq run <id>...
      pending jobs due now (the same jobs: payload and createdAt kept); refused while a scanner sends one (409)
  sdq run-due --before TIME [--queue Q] [--cursor C]
  sdq run-due --tag T [--before TIME] [--cursor C]
      every pending job due before TIME (ISO-8601 with a zone, or epoch ms), or with tag T, due now, step by step;
      each step prints what it moved (with a tag: and the jobs being sent already) and its cursor (--cursor C goes on
      from one)`

/** Script runs per printed step (each reads at most 500 jobs of one shard). */
const RUNS_PER_STEP = 64

export class RunCommandError extends Error {}

export async function runCommand(
  queue: DelayQueue,
  command: 'run' | 'run-due',
  ids: string[],
  flags: { before?: string; queue?: string; tag?: string; cursor?: string },
  print: (line: unknown) => void,
): Promise<void> {
  if (command === 'run') {
    if (ids.length === 0) throw new RunCommandError('name job ids')
    for (const id of ids) print(await queue.runNow(id))
    return
  }
  if (flags.before === undefined && flags.tag === undefined) throw new RunCommandError('--before or --tag is required')
  const before = flags.before !== undefined && /^\d+$/.test(flags.before) ? Number(flags.before) : flags.before
  let cursor = flags.cursor
  let total = 0
  do {
    const input = { before, queue: flags.queue, tag: flags.tag, cursor }
    const step = await queue.runDue(input, { maxRuns: RUNS_PER_STEP })
    total += step.promoted
    cursor = step.cursor ?? undefined
    print({
      promoted: step.promoted,
      ...(step.inFlight !== undefined ? { inFlight: step.inFlight } : {}),
      cursor: step.cursor,
    })
  } while (cursor)
  print({ promotedInAll: total })
}
