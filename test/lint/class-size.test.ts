// House rule: no class in src/ over 150 lines (Biome holds functions to 60, but has no rule for classes). Measured on
// the formatted tree: from a top-level `class` line to the `}` that closes it at the start of a line.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const MAX_CLASS_LINES = 150
const src = resolve(__dirname, '../../src')

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return tsFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Each top-level class of a text, with its length in lines; a class whose end is not found counts as endless. */
function classSizes(text: string, file: string): { name: string; lines: number }[] {
  const lines = text.split('\n')
  const sizes: { name: string; lines: number }[] = []
  lines.forEach((line, start) => {
    const declared = /^(?:export )?(?:default )?(?:abstract )?class (\w+)/.exec(line)
    if (!declared) return
    // A class whose body is empty on its own line (`class A extends B {}`) ends there.
    if (line.trimEnd().endsWith('{}')) return void sizes.push({ name: `${file} ${declared[1]}`, lines: 1 })
    const end = lines.findIndex((l, i) => i > start && l.startsWith('}'))
    sizes.push({ name: `${file} ${declared[1]}`, lines: end === -1 ? Number.POSITIVE_INFINITY : end - start + 1 })
  })
  return sizes
}

const sizesOf = (path: string) => classSizes(readFileSync(path, 'utf8'), relative(src, path))

describe('class size', () => {
  it('counts a class whose closing brace it cannot find as over the limit', () => {
    // prepare: a class indented so that no `}` closes it at the start of a line
    const text = ['export class Open {', '  a = 1', '  }', ''].join('\n')
    // act / assess
    expect(classSizes(text, 'x.ts')).toEqual([{ name: 'x.ts Open', lines: Number.POSITIVE_INFINITY }])
    expect(classSizes('class Closed {\n  a = 1\n}\n', 'y.ts')).toEqual([{ name: 'y.ts Closed', lines: 3 }])
    expect(classSizes('class A extends B {}\nclass C {\n}\n', 'z.ts')).toEqual([
      { name: 'z.ts A', lines: 1 },
      { name: 'z.ts C', lines: 2 },
    ])
  })

  it(`keeps every class in src/ within ${MAX_CLASS_LINES} lines`, () => {
    // prepare / act
    const sizes = tsFiles(src).flatMap(sizesOf)
    // assess: the measure sees the large classes at all, and none is over
    expect(sizes.map((s) => s.name)).toEqual(
      expect.arrayContaining([
        'direct/delay-queue.ts DelayQueue',
        'store/job-store.ts JobStore',
        'scan/loop/scanner.ts Scanner',
      ]),
    )
    expect(sizes.filter((s) => s.lines > MAX_CLASS_LINES)).toEqual([])
  })
})
