// .ci/cfn-lint: where cfn-lint is installed, .ci/run lints every template test/deploy/spec.test.ts packaged, and a
// finding fails CI; where it is not, CI says so and goes on. Run here on the packaged default template and on copies
// with a planted defect of each kind cfn-lint caught on its own (a misspelt property, an IAM action that does not
// exist), with cfn-lint hidden from PATH, and with a stand-in that records what it was asked to lint.
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Template } from '../support/cfn-template'
import { packageTemplate } from '../support/sls'

const root = resolve(__dirname, '../..')
const script = resolve(root, '.ci/cfn-lint')

/** PATH without the folders that hold a cfn-lint. */
const pathWithoutCfnLint = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir && !existsSync(join(dir, 'cfn-lint')))
  .join(delimiter)
const cfnLintInstalled =
  pathWithoutCfnLint !== (process.env.PATH ?? '').split(delimiter).filter(Boolean).join(delimiter)

/** Runs .ci/cfn-lint on `dir` with this PATH; its exit code and output. */
function runScript(dir: string, path: string): Promise<{ code: number; out: string }> {
  return new Promise((ok) =>
    execFile(script, [dir], { env: { ...process.env, PATH: path }, timeout: 120_000 }, (error, stdout, stderr) =>
      ok({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  )
}

let work: string
let packaged: Template
/** A folder holding these templates (name -> template). */
function folder(templates: Record<string, Template>): string {
  const dir = mkdtempSync(join(work, 'templates-'))
  for (const [name, t] of Object.entries(templates)) writeFileSync(join(dir, `${name}.json`), JSON.stringify(t))
  return dir
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdq-cfn-lint-'))
  packaged = await packageTemplate(root, 'prod')
}, 180_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('.ci/cfn-lint on the packaged templates', () => {
  it('is run by .ci/run on the templates the spec test writes, after the tests', () => {
    const ci = readFileSync(resolve(root, '.ci/run'), 'utf8')
    expect(ci).toMatch(/export SDQ_TEMPLATE_DIR="\$PWD\/\.ci\/out\/templates"\n[\s\S]*npm test/)
    expect(ci).toMatch(/\n\.ci\/cfn-lint "\$SDQ_TEMPLATE_DIR" \|\| \{ echo "cfn-lint failed"; status=1; \}/)
  })

  it('says cfn-lint is not installed and passes where it is absent', async () => {
    const { code, out } = await runScript(folder({ default: packaged }), pathWithoutCfnLint)
    expect(out).toContain('cfn-lint: not installed, the packaged templates are not linted')
    expect(code).toBe(0)
  })

  it('hands every template of the folder to cfn-lint, and fails when it reports a finding', async () => {
    const bin = mkdtempSync(join(work, 'bin-'))
    const calls = join(work, 'calls.txt')
    // A stand-in: records its arguments, reports a finding for any file named *broken*.
    writeFileSync(
      join(bin, 'cfn-lint'),
      `#!/bin/sh\n[ "$1" = --version ] && { echo "cfn-lint 0.0.0"; exit 0; }\necho "$*" >> ${calls}\n` +
        'case "$*" in *broken*) echo "E0000 planted"; exit 2;; esac\nexit 0\n',
    )
    chmodSync(join(bin, 'cfn-lint'), 0o755)
    const path = `${bin}${delimiter}${pathWithoutCfnLint}`
    const clean = await runScript(folder({ a: packaged, b: packaged }), path)
    expect(clean).toMatchObject({ code: 0 })
    expect(clean.out).toContain('2 packaged templates, no findings')
    expect(readFileSync(calls, 'utf8')).toMatch(
      /^--ignore-checks W3005 --non-zero-exit-code warning -- \S+\/a\.json \S+\/b\.json\n$/,
    )
    const broken = await runScript(folder({ a: packaged, broken: packaged }), path)
    expect(broken.code).toBe(1)
    expect(broken.out).toContain('E0000 planted')
  })

  it('fails when the spec test wrote no templates (a CI that lints nothing must not pass as linted)', async () => {
    const bin = mkdtempSync(join(work, 'bin-'))
    writeFileSync(join(bin, 'cfn-lint'), '#!/bin/sh\nexit 0\n')
    chmodSync(join(bin, 'cfn-lint'), 0o755)
    const { code, out } = await runScript(folder({}), `${bin}${delimiter}${pathWithoutCfnLint}`)
    expect(out).toContain('no packaged templates')
    expect(code).toBe(1)
  })

  it.runIf(cfnLintInstalled)(
    'with the real cfn-lint: passes the packaged template, fails a misspelt property and an action that does not exist',
    async () => {
      expect(await runScript(folder({ default: packaged }), process.env.PATH!)).toMatchObject({ code: 0 })
      const misspelt = structuredClone(packaged)
      misspelt.Resources.ScanLambdaFunction.Properties.Timout = 70
      const noSuchAction = structuredClone(packaged)
      noSuchAction.Resources.ScanRole.Properties.Policies[0].PolicyDocument.Statement[2].Action = 'sqs:SendMesage'
      // Both broken templates in one folder, one cfn-lint run: it names each finding (cfn-lint starts slowly, and a
      // loaded machine makes each start seconds long).
      const broken = await runScript(folder({ misspelt, noSuchAction }), process.env.PATH!)
      expect(broken.code).toBe(1)
      expect(broken.out).toMatch(/E3002 .*'Timout' was unexpected/)
      expect(broken.out).toMatch(/W3037 'sendmesage' is not one of/)
    },
    120_000,
  )
})
