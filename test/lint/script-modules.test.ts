// Each Lua script's contract has one home on the TypeScript side: lua/<name>.lua has src/store/scripts/<name>.ts,
// which builds its call (KEYS and ARGV by name) and reads its reply (a decoder, and its statuses where it has them).
// A call built anywhere else, or a script without its module, spreads the reply's positions over its callers again.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const repo = resolve(__dirname, '../..')
const MODULES = 'src/store/scripts'

/** A script's command name from its file name: flow-take -> sdqFlowTake (src/store/scripts.ts registers them so). */
const commandOf = (name: string) => `sdq${name.replace(/(^|-)(\w)/g, (_, _dash, c: string) => c.toUpperCase())}`

/** Where a script call is built: the `script:` field of a ScriptCall, and the command it names. */
const CALL = /\bscript:\s*'(sdq\w+)'/g

/** What is out of place: a script without its module, a call of another script in a module, a call built elsewhere. */
function misplaced(scripts: readonly string[], sources: readonly { path: string; text: string }[]): string[] {
  const found: string[] = []
  for (const name of scripts) {
    const module = sources.find((s) => s.path === `${MODULES}/${name}.ts`)
    if (!module) found.push(`lua/${name}.lua has no ${MODULES}/${name}.ts`)
  }
  for (const { path, text } of sources) {
    const own = path.startsWith(`${MODULES}/`) ? commandOf(path.slice(MODULES.length + 1, -3)) : null
    for (const [, command] of text.matchAll(CALL)) {
      if (command !== own) found.push(`${path} builds a call of ${command}`)
    }
  }
  return found
}

function sources(): { path: string; text: string }[] {
  return readdirSync(join(repo, 'src'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
    .map((full) => ({ path: relative(repo, full).split('\\').join('/'), text: readFileSync(full, 'utf8') }))
}

describe('one module per Lua script', () => {
  it('finds a script without its module, and a call built outside it', () => {
    const files = [
      { path: `${MODULES}/claim.ts`, text: "return { script: 'sdqClaim', keys, args }" },
      { path: `${MODULES}/ack.ts`, text: "return { script: 'sdqRelease', keys, args }" },
      { path: 'src/flow/flow-take.ts', text: "const call = { script: 'sdqFlowTake', keys, args }" },
    ]
    expect(misplaced(['claim', 'ack', 'flow-take'], files)).toEqual([
      `lua/flow-take.lua has no ${MODULES}/flow-take.ts`,
      `${MODULES}/ack.ts builds a call of sdqRelease`,
      'src/flow/flow-take.ts builds a call of sdqFlowTake',
    ])
    expect(commandOf('scheduler-lock-release')).toBe('sdqSchedulerLockRelease')
  })

  it('every script in lua/ has its module in src/store/scripts/, and only there is its call built', () => {
    const scripts = readdirSync(join(repo, 'lua'))
      .filter((f) => f.endsWith('.lua'))
      .map((f) => f.slice(0, -4))
    expect(scripts.length).toBeGreaterThan(25)
    expect(misplaced(scripts, sources())).toEqual([])
  })
})
