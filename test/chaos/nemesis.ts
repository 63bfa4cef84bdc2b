// The nemesis: on a seeded random schedule, starts a fault every 1.5-6 s (so at least one every 10 s) without
// waiting for the ones still running, so several overlap some of the time. Redis faults are one at a time and at
// least 15 s apart (a failover must settle); SQS faults one at a time; a scanner one fault owns is left alone.
import { sleep } from '../../devkit/sleep'
import * as f from './faults'
import type { Fault, FaultKind } from './history'

const WEIGHTS: [FaultKind, number][] = [
  ['scanner-kill', 4],
  ['scanner-pause', 3],
  ['scanner-partition', 3],
  ['scanner-skew', 1],
  ['api-partition', 3],
  ['primary-kill', 2],
  ['replica-cut-primary-kill', 2],
  ['sqs-refuse', 3],
  ['sqs-outage', 2],
  ['sqs-drop-answers', 3],
]

export interface Nemesis {
  faults: Fault[]
  /** Resolves when every fault started has healed. */
  done: Promise<void>
}

export function startNemesis(ctx: f.FaultContext, running: () => boolean, log: (line: string) => void): Nemesis {
  const faults: Fault[] = []
  const busy = new Set<string>()
  let redisFreeAt = 0
  const tasks: Promise<void>[] = []

  const launch = (group: string | undefined, action: () => Promise<f.FaultReport>, onEnd?: () => void) => {
    if (group) busy.add(group)
    const start = Date.now()
    tasks.push(
      action()
        .then((report) => {
          const fault = { ...report, start, end: Date.now() }
          faults.push(fault)
          log(`fault ${fault.kind} ${fault.target ?? ''} ${fault.detail ?? ''} (${fault.end - start} ms)`)
        })
        .catch((e) => log(`fault failed to run: ${(e as Error).message}`))
        .finally(() => {
          if (group) busy.delete(group)
          onEnd?.()
        }),
    )
  }

  /** Starts a fault of this kind if its resources are free; false when they are not. */
  const tryStart = (kind: FaultKind): boolean => {
    if (kind === 'primary-kill' || kind === 'replica-cut-primary-kill') {
      if (busy.has('redis') || Date.now() < redisFreeAt) return false
      launch(
        'redis',
        () => f.primaryKill(ctx, kind === 'replica-cut-primary-kill'),
        () => {
          redisFreeAt = Date.now() + 15_000
        },
      )
      return true
    }
    if (kind.startsWith('sqs-')) {
      if (busy.has('sqs')) return false
      const run = { 'sqs-refuse': f.sqsRefuse, 'sqs-outage': f.sqsOutage, 'sqs-drop-answers': f.sqsDropAnswers }[
        kind as 'sqs-refuse'
      ]
      launch('sqs', () => run(ctx))
      return true
    }
    if (kind === 'api-partition') {
      if (busy.has('api') || !ctx.stage.apiProxy) return false
      launch('api', () => f.apiPartition(ctx))
      return true
    }
    const scanner = f.freeScanner(ctx, kind === 'scanner-partition')
    if (!scanner) return false
    scanner.busy = true
    const run = {
      'scanner-kill': f.scannerKill,
      'scanner-pause': f.scannerPause,
      'scanner-partition': f.scannerPartition,
      'scanner-skew': f.scannerSkew,
    }[kind as 'scanner-kill']
    launch(
      undefined,
      () => run(ctx, scanner),
      () => {
        scanner.busy = false
      },
    )
    return true
  }

  const total = WEIGHTS.reduce((n, [, w]) => n + w, 0)
  const pickKind = (): FaultKind => {
    let r = ctx.random.next() * total
    for (const [kind, w] of WEIGHTS) {
      r -= w
      if (r < 0) return kind
    }
    return WEIGHTS[0]![0]
  }

  const done = (async () => {
    while (running()) {
      await sleep(ctx.random.int(1_500, 6_000))
      if (!running()) break
      for (let tries = 0; tries < 6 && !tryStart(pickKind()); tries++);
    }
    // Tasks launched meanwhile are in `tasks` too: wait until none is left running.
    for (let seen = 0; seen < tasks.length; seen = tasks.length) await Promise.all(tasks)
  })()
  return { faults, done }
}
