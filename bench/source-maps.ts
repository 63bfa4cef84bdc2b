// `npm run bench:source-maps`: what source maps cost a cold start. Packages the functions as `serverless package`
// does (linked .map files), then loads each bundle in a fresh Node process, with and without --enable-source-maps,
// interleaved, and reports the median module load time of each and their ratio. No Redis or SQS is contacted: the
// settings point at closed loopback ports and the process exits once the module has loaded. The AWS SDK, which the
// Lambda runtime provides, loads from the repository (NODE_PATH), in both cases alike.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { median } from '../devkit/stats'

const REPS = Number(process.env.REPS ?? 21)
const root = resolve(__dirname, '..')

function loadMs(file: string, sourceMaps: boolean): number {
  const probe = `const t = performance.now(); require(${JSON.stringify(file)}); console.log(performance.now() - t); process.exit(0)`
  const out = spawnSync(process.execPath, [...(sourceMaps ? ['--enable-source-maps'] : []), '-e', probe], {
    // The runtime provides the AWS SDK: here, the repository's copy.
    env: {
      PATH: process.env.PATH,
      NODE_PATH: resolve(root, 'node_modules'),
      REDIS_URL: 'redis://127.0.0.1:1',
      QUEUES: 'orders=http://127.0.0.1:1/q/orders',
      AWS_REGION: 'us-east-1',
    },
    encoding: 'utf8',
  })
  if (out.status !== 0) throw new Error(`loading ${file} failed: ${out.stderr}`)
  return Number(out.stdout.trim().split('\n').pop())
}

function main() {
  const dir = mkdtempSync(join(tmpdir(), 'sdq-maps-'))
  try {
    execFileSync(
      process.execPath,
      [resolve(root, 'node_modules/serverless/bin/serverless.js'), 'package', '--stage', 'prod', '--package', dir],
      {
        cwd: root,
        env: { ...process.env, SDQ_ESBUILD_WORK_FOLDER: `.esbuild/bench-maps-${process.pid}` },
        stdio: 'ignore',
      },
    )
    execFileSync('unzip', ['-q', join(dir, 'serverless-delay-queue.zip'), '-d', join(dir, 'zip')])
    console.log(`module load time, median of ${REPS} fresh processes each (interleaved), Node ${process.version}`)
    console.log('function   | no maps (ms) | --enable-source-maps (ms) | ratio')
    for (const fn of ['api', 'scan', 'consumer']) {
      const file = join(dir, 'zip/functions', `${fn}.js`)
      const without: number[] = []
      const withMaps: number[] = []
      for (let i = 0; i < REPS; i++) {
        without.push(loadMs(file, false))
        withMaps.push(loadMs(file, true))
      }
      const [a, b] = [median(without), median(withMaps)]
      console.log(
        `${fn.padEnd(10)} | ${a.toFixed(1).padStart(12)} | ${b.toFixed(1).padStart(25)} | ${(b / a).toFixed(2)}`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    rmSync(resolve(root, `.esbuild/bench-maps-${process.pid}`), { recursive: true, force: true })
  }
}

main()
