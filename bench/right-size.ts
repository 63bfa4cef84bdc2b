// `npm run bench:right-size [-- --quick]`: the CPU figures the functions' memory sizes are chosen from (bench/cpu.ts), in
// a private redis-server and local SQS endpoint like `npm run bench`. Writes the `cpu` section of bench/results.json
// and prints the throughput each scan memory size gives (docs/cost.md "Right-sizing").
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { vcpuShare } from '../src/scan/observe/cpu-share'
import { measureCpu } from './cpu'
import { startBenchEnv } from './env'
import { runMain } from './main'

const quick = process.argv.includes('--quick')
const size = quick
  ? { drainJobs: 5_000, idleSeconds: 3, apiRequests: 200, reps: 1, steadySeconds: 5 }
  : { drainJobs: 20_000, idleSeconds: 10, apiRequests: 2_000, reps: 3, steadySeconds: 20 }

async function main() {
  const env = await startBenchEnv()
  try {
    const cpu = await measureCpu(env, size)
    console.log(JSON.stringify(cpu, null, 2))
    console.log('\nscan memory | vCPU share | jobs/s one scanner can dispatch (CPU-bound) | idle CPU share')
    for (const mb of [256, 512, 1024, 1769]) {
      const share = vcpuShare(mb)
      const perSec = (share * 1000) / (cpu.scanCpuMsPer1000Jobs / 1000)
      console.log(
        `${String(mb).padStart(5)} MB | ${share.toFixed(2)} | ${Math.round(perSec).toLocaleString('en-US')} | ${((cpu.scanIdleCpuMsPerSec / 1000 / share) * 100).toFixed(2)} %`,
      )
    }
    const file = resolve(process.cwd(), 'bench/results.json')
    const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    const section = { date: new Date().toISOString(), mode: quick ? 'quick' : 'full', ...cpu }
    writeFileSync(file, `${JSON.stringify({ ...all, cpu: section }, null, 2)}\n`)
  } finally {
    await env.stop()
  }
}

runMain(main)
