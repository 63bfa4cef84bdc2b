// The cost figures of README.md and docs/cost.md are the tool's: each block `<!-- cost: ARGS -->` holds exactly what
// `npm run cost -- ARGS` prints now (tools/cost/docs.ts). A figure edited by hand, or a serverless.yml change that
// changes the bill without `npm run cost:docs`, fails here.
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { blocksOf, driftsOf, FIGURE_FILES, firstDifference, strayFigures, toolRunner } from '../../tools/cost/docs'

const root = resolve(__dirname, '../..')
const texts = FIGURE_FILES.map((file) => ({ file, text: readFileSync(resolve(root, file), 'utf8') }))
const tool = toolRunner(root)
/** The idle figure of a headline ("**$1.20 a month idle**"). */
const idleOf = (headline: string) => Number(/\*\*\$([\d.]+) a month idle\*\*/.exec(headline)?.[1])

describe('the cost figures of the docs', () => {
  it('are, block by block, what npm run cost prints for the configuration each names', async () => {
    // prepare: the README's headline and every block of docs/cost.md
    const blocks = texts.flatMap(({ file, text }) => blocksOf(file, text))
    expect(blocks.filter((b) => b.file === 'README.md').map((b) => b.args)).toEqual(['--headline'])
    expect(blocks.filter((b) => b.file === 'docs/cost.md').map((b) => b.args)).toEqual(
      expect.arrayContaining(['--headline', '--configurations', '--markdown', '--compare', '--prices']),
    )
    // act
    const drifts = await driftsOf(texts, tool)
    // assess
    expect(drifts.map(firstDifference)).toEqual([])
  }, 300_000)

  it('are all in blocks: no dollar figure of README.md or docs/cost.md is typed outside one', () => {
    expect(texts.flatMap(({ file, text }) => strayFigures(text).map((f) => `${file}: ${f}`))).toEqual([])
    expect(strayFigures('idle: $3.00 a month\n<!-- cost: --headline -->\n$1.20\n<!-- /cost -->')).toEqual([
      'idle: $3.00 a month',
    ])
  })

  it('fail the check when a figure is edited by hand', async () => {
    const cost = texts.find((t) => t.file === 'docs/cost.md')!
    const headline = blocksOf(cost.file, cost.text).find((b) => b.args === '--headline')!
    const edited = cost.text.replace(headline.text, headline.text.replace(/\$(\d+)\.(\d)(\d)/, '$$$1.$2$39'))
    expect(edited).not.toBe(cost.text)

    const drifts = await driftsOf([{ file: cost.file, text: edited }], tool)

    expect(drifts.map((d) => d.args)).toEqual(['--headline'])
    expect(firstDifference(drifts[0]!)).toMatch(/^docs\/cost\.md <!-- cost: --headline --> line 1:/)
  }, 120_000)

  it("fail the check for the default template's figures when serverless.yml turns the dashboard back on", async () => {
    // prepare: serverless.yml with `dashboard: true` by default, a copy packaged in its place (osls --config)
    const config = `serverless-cost-drift-${randomBytes(4).toString('hex')}.yml`
    const yml = readFileSync(resolve(root, 'serverless.yml'), 'utf8')
    const drifted = yml.replace(/^( {4}dashboard:) false$/m, '$1 true')
    expect(drifted).not.toBe(yml)
    writeFileSync(resolve(root, config), drifted)
    try {
      // act: the blocks of the default template, priced from the changed file
      const headlines = texts.map(({ file, text }) => ({
        file,
        text: blocksOf(file, text)
          .filter((b) => b.args === '--headline')
          .map((b) => `<!-- cost: ${b.args} -->\n${b.text}\n<!-- /cost -->`)
          .join('\n'),
      }))
      const drifts = await driftsOf(headlines, toolRunner(root, ['--config', config]))
      // assess: both headlines differ, by the dashboard's month
      expect(drifts.map((d) => d.file)).toEqual(['README.md', 'docs/cost.md'])
      for (const d of drifts) expect(idleOf(d.printed) - idleOf(d.text)).toBeCloseTo(3, 2)
    } finally {
      rmSync(resolve(root, config), { force: true })
    }
  }, 120_000)
})
