// The order files start in: the longest first, over all projects of a group, so no long file starts late and runs
// alone at the end (the whole run waits for its longest path, not for the sum of its files). vitest's own order runs
// the projects one after the other and, on a fresh clone (no results cache, as in CI), each project's files by size:
// the redis project's long files then started after every cluster file. The figures below are seconds per file
// (files above ~9 s): from a CI run's report, or run alone for the files that start a dev stack or build a package
// in beforeAll (the report leaves that time out: ticks reported 5.6 s and took 10.9); the other files follow in
// vitest's order. Fixed figures rather than vitest's results cache: CI starts without one, and a local cache keeps
// whatever a file once took (a file run alone under load, a failing run).
// Groups (the serial fault suites after the others) stay as vitest makes them.
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const SECONDS: Record<string, number> = {
  'outcome-faults:test/faults/chaos-sentinel.test.ts': 85,
  'outcome-faults:test/faults/chaos-cluster.test.ts': 85,
  // 14.9 s in a quiet CI run beside the others (22.4 s alone, before a replica's sync was immediate); more under load
  'outcome-faults:test/faults/cluster-failover.test.ts': 27,
  // the three Sentinel cases side by side: 15-19 s with the file run beside busy loops (load 11-14, down-after 2 s)
  'outcome-faults:test/faults/failover.test.ts': 19,
  'redis:test/e2e/dashboard.test.ts': 26,
  'redis:test/deploy/template.test.ts': 40,
  'redis:test/engine/schedule-clock.test.ts': 17,
  'redis:test/deploy/user-service.test.ts': 16.7,
  'redis:test/consumer/idempotency-faults.test.ts': 15,
  'redis:test/e2e/scan-function-fan-out.test.ts': 13.5,
  'redis:test/e2e/on-demand.test.ts': 12.9,
  'redis:test/consumer/deadline.test.ts': 12.5,
  'cluster:test/cluster/resharding.test.ts': 25,
  'redis:test/e2e/dev-stack.test.ts': 12.4,
  'redis:test/e2e/dev-stack-failure.test.ts': 13.6,
  // its beforeAll starts a dev stack (~19 s under the suite's load) before the 12 s cold start it waits out
  'redis:test/e2e/dev-stack-cold-start.test.ts': 31,
  'redis:test/engine/claims.test.ts': 19,
  'cluster:test/engine/claims.test.ts': 19,
  'redis:test/engine/schedule-settle.test.ts': 11,
  'redis:test/e2e/ticks.test.ts': 10.9,
  'redis:test/engine/scan-start.test.ts': 13.4,
  'cluster:test/engine/scan-start.test.ts': 13.4,
  'redis:test/engine/scan-relay.test.ts': 9.6,
  'redis:test/deploy/open-api.test.ts': 9.5,
  'redis:test/engine/scanner.test.ts': 9.4,
  'cluster:test/engine/scanner.test.ts': 9.4,
  'redis:test/engine/on-demand.test.ts': 7.5,
  'cluster:test/engine/on-demand.test.ts': 7.5,
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const vitestOrder = await super.sort(files)
    const rank = new Map(vitestOrder.map((spec, i) => [spec, i]))
    const seconds = (spec: TestSpecification): number => {
      const path = relative(spec.project.config.root, spec.moduleId).split('\\').join('/')
      return SECONDS[`${spec.project.name}:${path}`] ?? 0
    }
    return [...vitestOrder].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        seconds(b) - seconds(a) ||
        (rank.get(a) ?? 0) - (rank.get(b) ?? 0),
    )
  }
}
