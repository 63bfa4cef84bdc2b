// `serverless package` of any service folder with this repository's osls, run like a clean CI machine: no AWS
// credentials or config files, none of the delay queue's settings in the environment, no network.
import { oneAtATime } from '../../devkit/package-lock'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const root = resolve(__dirname, '../..')
const SETTINGS = /^(AWS_|SDQ_|REDIS_|QUEUES$|KEY_PREFIX$|SHARDS$|SQS_ENDPOINT$|DELAY_QUEUE_)/

/**
 * Packages `serviceDir` for `stage` (plus `extraArgs`, e.g. `--param=name=value`) and returns its CloudFormation
 * template (the update-stack one). A refused packaging rejects with osls's output in the message.
 */
export async function packageTemplate(
  serviceDir: string,
  stage: string,
  extraArgs: string[] = [],
): Promise<Record<string, any>> {
  const out = mkdtempSync(join(tmpdir(), 'sdq-sls-'))
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!SETTINGS.test(k)) env[k] = v
  Object.assign(env, {
    SDQ_ESBUILD_WORK_FOLDER: `.esbuild/test-${randomBytes(4).toString('hex')}`,
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
    AWS_CONFIG_FILE: '/nonexistent/config',
    AWS_EC2_METADATA_DISABLED: 'true',
    FORCE_COLOR: '0',
  })
  try {
    await oneAtATime(
      serviceDir,
      () =>
        new Promise<void>((ok, fail) =>
          execFile(
            process.execPath,
            [
              resolve(root, 'node_modules/serverless/bin/serverless.js'),
              'package',
              '--stage',
              stage,
              '--package',
              out,
              ...extraArgs,
            ],
            { cwd: serviceDir, env, maxBuffer: 64 << 20, timeout: 120_000 },
            (error, stdout, stderr) =>
              error
                ? fail(new Error(`serverless package in ${serviceDir}: ${error.message}\n${stderr}\n${stdout}`))
                : ok(),
          ),
        ),
    )
    return JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'))
  } finally {
    rmSync(out, { recursive: true, force: true })
    rmSync(resolve(serviceDir, env.SDQ_ESBUILD_WORK_FOLDER!), { recursive: true, force: true })
  }
}
