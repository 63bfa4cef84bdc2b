// A price on a page is true only while the template, the benches and the price table it came from are unchanged:
// every dollar figure of the docs is the cost tool's, in a `<!-- cost: ARGS -->` block that
// test/cost/docs-figures.test.ts compares with `npm run cost -- ARGS`. Other pages link to docs/cost.md instead.
import { describe, expect, it } from 'vitest'
import { blocksOf, FIGURE_FILES, strayFigures } from '../../tools/cost/docs'
import { docPages } from '../support/doc-pages'

describe('cost figures in the docs', () => {
  it('finds a dollar figure typed outside a cost block, as a page would quote an old bill', () => {
    // prepare: a benchmark sentence quoting a bill
    const page =
      'With a 1 s window 100M jobs a month take 192 MB and cost $48.59.\n<!-- cost: --headline -->\n$1.56\n<!-- /cost -->'
    // act / assess: the typed figure, not the block's
    expect(strayFigures(page)).toEqual([' 100M jobs a month take 192 MB and cost $48.59.'])
  })

  it('finds none on any page of README.md, RELIABILITY.md or docs/, and cost blocks only where they are checked', () => {
    // act
    const pages = docPages()
    const stray = pages.flatMap((page) => strayFigures(page.text).map((figure) => `${page.name}: ${figure}`))
    const unchecked = pages
      .filter((page) => !FIGURE_FILES.includes(page.name))
      .flatMap((page) => blocksOf(page.name, page.text).map((block) => `${page.name}: cost block ${block.args}`))
    // assess
    expect(stray).toEqual([])
    expect(unchecked).toEqual([])
  })
})
