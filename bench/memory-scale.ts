// `npm run bench:memory-scale [-- <jobs> <buckets> ...]`: bytes per pending job at a large pending count, for each
// DUE_BUCKETS given (default: the 100M-a-month scenario of the cost model, 3.29M jobs waiting a day, in the default
// 16,384 buckets and in the 65,536 the model names for it). Buckets past ~128 jobs leave Redis's compact encoding:
// this shows what that costs, and that the bucket count the model recommends keeps the figure of `npm run bench`.
// Needs ~1.5 GB of memory for the private redis-server.
import { startBenchEnv } from './env'
import { runMain } from './main'
import { measureMemory } from './memory'

async function main() {
  const [jobsArg, ...bucketArgs] = process.argv.slice(2)
  const jobs = Number(jobsArg ?? 3_290_000)
  const bucketCounts = bucketArgs.length ? bucketArgs.map(Number) : [16_384, 65_536]
  const env = await startBenchEnv()
  try {
    console.log('jobs | DUE_BUCKETS | jobs per bucket | bucket encoding | bytes per job')
    for (const buckets of bucketCounts) {
      const m = await measureMemory(env, jobs, buckets)
      console.log(
        `${jobs.toLocaleString('en-US')} | ${buckets} | ${(jobs / buckets).toFixed(0)} | ${m.bucketEncoding} | ${m.bytesPerJob.toFixed(1)}`,
      )
    }
  } finally {
    await env.stop()
  }
}

runMain(main)
