// Docs a user can read in one sitting: the README is the first screen and a short walkthrough, every other page one
// topic. A page that grows past its bound is split by topic (docs/README.md indexes the pages).
import { describe, expect, it } from 'vitest'
import { docPages, lineCount } from '../support/doc-pages'

const MAX_README_LINES = 150
const MAX_PAGE_LINES = 400

describe('docs size', () => {
  it(`keeps README.md within ${MAX_README_LINES} lines and every other page within ${MAX_PAGE_LINES}`, () => {
    // prepare
    const pages = docPages()
    // act
    const over = pages
      .map((page) => ({ name: page.name, lines: lineCount(page.text) }))
      .filter((page) => page.lines > (page.name === 'README.md' ? MAX_README_LINES : MAX_PAGE_LINES))
      .map((page) => `${page.name}: ${page.lines} lines`)
    // assess: the walk sees the pages at all, and none is over its bound
    expect(pages.map((page) => page.name)).toEqual(
      expect.arrayContaining(['README.md', 'RELIABILITY.md', 'docs/README.md', 'docs/api.md']),
    )
    expect(over).toEqual([])
  })
})
