// `npx sdq-poll` in a fresh clone of this repository, before any `npm run build`: npm runs the file package.json's
// `bin` names, so that file must be in git (dist/ is not) and must run the command from the TypeScript source.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const root = resolve(__dirname, '../..')
const run = promisify(execFile)

describe('the sdq-poll command in a clone of the repository', () => {
  it('is a file git has, and prints its usage from the source without a build', async () => {
    // prepare: the command as npm finds it
    const bin = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin['sdq-poll'] as string
    // act: git knows the file (a fresh clone has it), and it runs
    const tracked = await run('git', ['ls-files', '--error-unmatch', bin], { cwd: root }).then(
      () => true,
      () => false,
    )
    const { stderr } = await run(process.execPath, [join(root, bin), '--help'], { cwd: root, timeout: 60_000 })
    // assess
    expect({ bin, tracked }).toEqual({ bin: expect.not.stringMatching(/^(\.\/)?dist\//), tracked: true })
    expect(stderr).toContain('usage: sdq-poll --queue <target>')
  })
})
