// Pages are split and renamed as they grow: every relative link of a page must still reach a file, and every
// `#anchor` into a Markdown page a heading of it (GitHub's anchor rule), so a move cannot leave readers at a dead end.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { docPages, repoRoot } from '../support/doc-pages'

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes; repeats get -1, -2, .... */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const line of withoutCodeBlocks(markdown)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)
    if (!heading) continue
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

function withoutCodeBlocks(markdown: string): string[] {
  let inCode = false
  return markdown.split('\n').filter((line) => {
    if (line.startsWith('```')) inCode = !inCode
    return !inCode && !line.startsWith('```')
  })
}

/** Every relative link of a page that leads nowhere, as `page: target (reason)`. */
function deadLinks(name: string, text: string): string[] {
  const links = withoutCodeBlocks(text).flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]))
  return links.flatMap((link) => {
    if (/^[a-z]+:/i.test(link)) return []
    const [path, anchor] = link.split('#')
    const target = path === '' ? join(repoRoot, name) : resolve(dirname(join(repoRoot, name)), path)
    if (!existsSync(target)) return [`${name}: ${link} (no such file)`]
    if (anchor === undefined || !target.endsWith('.md')) return []
    return anchorsOf(readFileSync(target, 'utf8')).has(anchor) ? [] : [`${name}: ${link} (no such heading)`]
  })
}

describe('docs links', () => {
  it('derives the anchors GitHub gives headings with code, punctuation and repeats', () => {
    // prepare
    const page =
      '# Sending a write again: `Idempotency-Key`\n## GET /jobs/{id}\n## Notes\n```sh\n# not a heading\n```\n## Notes\n'
    // act / assess
    expect([...anchorsOf(page)]).toEqual(['sending-a-write-again-idempotency-key', 'get-jobsid', 'notes', 'notes-1'])
  })

  it('leads every relative link of README.md, RELIABILITY.md and docs/ to a file and a heading that exist', () => {
    // act
    const dead = docPages().flatMap((page) => deadLinks(page.name, page.text))
    // assess
    expect(dead).toEqual([])
  })
})
