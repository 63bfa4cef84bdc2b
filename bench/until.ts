// Waits in the bench scripts: poll a condition every 2 ms (fine enough to time a scanner's start from it), and fail
// naming what never came.
import { sleep } from '../devkit/sleep'

export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(2)
  }
}
