// `npm run cost:docs`: rewrites every cost block of README.md and docs/cost.md from the tool (tools/cost/docs.ts);
// `npm run cost:docs -- --check` compares only, and exits 1 naming the first differing line of each block.
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { driftsOf, FIGURE_FILES, firstDifference, rewritten, toolRunner } from './docs'

async function main() {
  const root = process.cwd()
  const check = process.argv.includes('--check')
  const run = toolRunner(root)
  const texts = FIGURE_FILES.map((file) => ({ file, text: readFileSync(resolve(root, file), 'utf8') }))
  const drifts = await driftsOf(texts, run)
  if (check) {
    for (const d of drifts) console.error(firstDifference(d))
    if (drifts.length) process.exit(1)
    return console.log(`cost figures: every block of ${FIGURE_FILES.join(', ')} is what the tool prints`)
  }
  const printed = new Map(drifts.map((d) => [d.args, d.printed]))
  for (const { file, text } of texts) {
    const updated = rewritten(text, printed)
    if (updated !== text) writeFileSync(resolve(root, file), updated)
  }
  console.log(`cost figures: ${drifts.length} block(s) rewritten`)
}

main().catch((e) => {
  console.error(`cost:docs: ${e instanceof Error ? e.message : e}`)
  process.exit(2)
})
