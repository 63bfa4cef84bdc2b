// A Lua script's reply status is read by name, beside the script's call (EnqueueStatus, CancelStatus,
// SchedulePutStatus, PromoteStatus, ...: the script's own module in src/store/scripts/, or the module that owns it): a
// status compared with a bare number (`code !== 1`, `(await runScript(redis, call)) === 1`) says nothing of what it
// means, and drifts from the script's header unseen. A reply is read by its script's decoder (decodeClaim, ...).
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const repo = resolve(__dirname, '../..')

/** A script status against a bare number: a reply's `code`, or a script's reply read on the spot. */
const BARE_STATUS = [/\bcode\s*[!=]==?\s*-?\d/, /\brunScript\(.*\)\)?\s*[!=]==?\s*-?\d/]

/** The lines of `text` that compare a script status with a bare number, as "path:line". */
function bareStatuses(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (BARE_STATUS.some((p) => p.test(line)) ? [`${path}:${i + 1}`] : []))
}

function sources(): { path: string; text: string }[] {
  return readdirSync(join(repo, 'src'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
    .map((full) => ({ path: relative(repo, full).split('\\').join('/'), text: readFileSync(full, 'utf8') }))
}

describe('script statuses by name', () => {
  it('finds the comparisons it refuses', () => {
    expect(bareStatuses('a.ts', 'if (code !== 1) throw e\nreturn (await runScript(redis, call)) === 1')).toEqual([
      'a.ts:1',
      'a.ts:2',
    ])
    expect(bareStatuses('a.ts', 'if (code !== CancelStatus.Cancelled) throw e\nif (status === 503) retry()')).toEqual(
      [],
    )
  })

  it('no file in src/ compares a script status with a bare number', () => {
    const all = sources()
    expect(all.length).toBeGreaterThan(200)
    expect(all.flatMap(({ path, text }) => bareStatuses(path, text))).toEqual([])
  })
})
