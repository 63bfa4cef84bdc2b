// `npm run bench:bundles [-- <dir>...]`: each function's bundle size and module load time. Without arguments it
// packages this tree (`serverless package --stage prod`, no credentials needed) into a temporary folder first;
// with arguments it measures folders that hold functions/<name>.js (bundles unzipped from another package run).
//
// Load time: a fresh Node process per run that requires the bundle and reports how long the require took, the way
// Lambda's init phase loads a handler module (module-scope code included: config, Redis client construction). The
// AWS SDK, left out of the bundles, resolves from this repository's node_modules as it would from the runtime's.
// Median of RUNS runs per bundle, interleaved so that background load hits every bundle alike.
import { execFileSync } from 'node:child_process'
import { existsSync, rmSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { bundlesIn, packageHere } from './packaged'
import { median } from '../devkit/stats'

const RUNS = 15
const root = process.cwd()
const ENV = {
  // Enough for every module's cold-start config check; nothing listens there (the client connects lazily or fails).
  REDIS_URL: 'redis://127.0.0.1:1',
  QUEUES: 'orders=http://127.0.0.1:1/000000000000/orders',
  AWS_REGION: 'us-east-1',
  NODE_PATH: resolve(root, 'node_modules'),
}

function loadMs(file: string): number {
  const script = `const t=performance.now();require(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t));process.exit(0)`
  return Number(execFileSync(process.execPath, ['-e', script], { env: { ...process.env, ...ENV }, encoding: 'utf8' }))
}

function main() {
  const dirs = process.argv.slice(2)
  const packaged = dirs.length ? undefined : packageHere()
  try {
    const sets = (dirs.length ? dirs : [packaged!]).map((dir) => {
      if (!existsSync(dir)) throw new Error(`no such folder: ${dir}`)
      return { dir, bundles: [...bundlesIn(resolve(dir))].sort(), samples: new Map<string, number[]>() }
    })
    // Every bundle of every folder once per round: folders compared see the same background load.
    for (let run = 0; run < RUNS; run++) {
      for (const set of sets) {
        for (const [name, file] of set.bundles) set.samples.set(name, [...(set.samples.get(name) ?? []), loadMs(file)])
      }
    }
    for (const { dir, bundles, samples } of sets) {
      console.log(`${dir}:`)
      for (const [name, file] of bundles) {
        const kb = statSync(file).size / 1000
        console.log(
          `  ${name.padEnd(10)} ${kb.toFixed(0).padStart(6)} kB   load ${median(samples.get(name)!).toFixed(1)} ms (median of ${RUNS})`,
        )
      }
    }
  } finally {
    if (packaged) rmSync(packaged, { recursive: true, force: true })
  }
}

main()
