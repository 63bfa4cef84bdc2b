// Global setup (listed first: teardowns run in reverse, so this one runs last) whose teardown fails the run when a process a test started is still alive (test/support/leftovers.ts).
import type { TestProject } from 'vitest/node'
import { assertNoLeftovers, RUN_MARKER } from './leftovers'

export default function setup(project: TestProject) {
  const runId = project.config.env?.[RUN_MARKER]
  if (!runId) throw new Error(`${RUN_MARKER} is not set in the vitest config's test.env`)
  return () => assertNoLeftovers(runId)
}
