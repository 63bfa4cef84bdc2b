// A user's path to the package: `npm pack` this repository (prepack builds it), copy examples/user-service to a
// temporary folder as if it were another repository, and `npm install` the tarball there. Only the runtime tree is
// installed (from the npm cache); the user's dev tools (osls, serverless-esbuild, esbuild, typescript, @types/node)
// are this repository's own, linked in, so the test does not download or install them again.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

const root = resolve(__dirname, '../..')
const DEV_TOOLS = ['serverless', 'serverless-esbuild', 'esbuild', 'typescript', '@types/node']

export interface PackedInstall {
  /** The temporary folder (tarball, the user's service, anything else a test writes). */
  dir: string
  tarball: string
  /** The user's service, installed. */
  service: string
  /** Milliseconds per step: pack (build included) and install. */
  timings: { packMs: number; installMs: number }
  remove(): void
}

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((ok, fail) =>
    execFile(cmd, args, { cwd, env, maxBuffer: 64 << 20, timeout: 180_000 }, (error, stdout, stderr) =>
      error ? fail(new Error(`${cmd} ${args.join(' ')}: ${error.message}\n${stderr}\n${stdout}`)) : ok(stdout),
    ),
  )
}

export async function packAndInstall(): Promise<PackedInstall> {
  const dir = mkdtempSync(join(tmpdir(), 'sdq-user-'))
  const t0 = Date.now()
  const packed = JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', dir], root))
  const tarball = join(dir, packed[0].filename)
  const t1 = Date.now()

  const service = join(dir, 'user-service')
  cpSync(resolve(root, 'examples/user-service'), service, {
    recursive: true,
    filter: (src) => !/\/(node_modules|\.serverless|\.esbuild|\.dev)(\/|$)/.test(src),
  })
  const pkg = JSON.parse(readFileSync(join(service, 'package.json'), 'utf8'))
  pkg.dependencies['serverless-delay-queue'] = `file:${tarball}`
  delete pkg.devDependencies
  writeFileSync(join(service, 'package.json'), JSON.stringify(pkg, null, 2))
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], service)
  const t2 = Date.now()

  for (const tool of DEV_TOOLS) {
    const link = join(service, 'node_modules', tool)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(resolve(root, 'node_modules', tool), link)
  }
  return {
    dir,
    tarball,
    service,
    timings: { packMs: t1 - t0, installMs: t2 - t1 },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
