// `npm run cost` without --template: packages the service offline (osls, no AWS credentials, a few seconds) with the
// given --param overrides, and returns the CloudFormation template it wrote. The default: `serverless package --stage
// prod`, the template a deploy without options creates.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { oneAtATime } from '../../devkit/package-lock'

export const TEMPLATE_NAME = 'cloudformation-template-update-stack.json'

/**
 * `.serverless/` for the defaults (where `serverless package` writes), `.serverless-cost/<params>/` otherwise (not
 * inside `.serverless/`: osls copies that folder's contents into the --package folder).
 */
export function packagedPath(root: string, params: string[], config?: string): string {
  const slug = [...(config ? [config] : []), ...params].map((p) => p.replace(/[^A-Za-z0-9=.-]/g, '_')).join(',')
  return slug ? resolve(root, '.serverless-cost', slug) : resolve(root, '.serverless')
}

export async function packageTemplate(root: string, params: string[], config?: string): Promise<string> {
  const out = packagedPath(root, params, config)
  const workFolder = `.esbuild/cost-${randomBytes(4).toString('hex')}`
  const env = { ...process.env, SDQ_ESBUILD_WORK_FOLDER: workFolder, FORCE_COLOR: '0' }
  const args = [
    resolve(root, 'node_modules/serverless/bin/serverless.js'),
    'package',
    '--stage',
    'prod',
    '--package',
    out,
    ...(config ? ['--config', config] : []),
    ...params.map((p) => `--param=${p}`),
  ]
  try {
    await oneAtATime(root, () => run(args, root, env))
  } finally {
    rmSync(resolve(root, workFolder), { recursive: true, force: true })
  }
  return join(out, TEMPLATE_NAME)
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((ok, fail) =>
    execFile(process.execPath, args, { cwd, env, maxBuffer: 64 << 20, timeout: 120_000 }, (error, stdout, stderr) =>
      error ? fail(new Error(`serverless package failed: ${error.message}\n${stderr}\n${stdout}`)) : ok(),
    ),
  )
}
