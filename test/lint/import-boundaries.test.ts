// The import boundaries in biome.jsonc (the API side, on-demand starting with it, never loads the scan side or the
// SQS SDK; the consumer toolkit never loads the store, ioredis, the scan side, the API side or on-demand starting;
// src/contract loads nothing but its own files)
// fire on a forbidden import, and stay quiet on the imports those folders do need. Biome lints probe files in a
// temporary copy of the layout, with the repo's own biome.jsonc, so the tree itself is never touched.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repo = resolve(__dirname, '../..')
const biome = join(repo, 'node_modules/.bin/biome')

interface Probe {
  file: string
  source: string
}

/** src/ as a probe two folders down sees it: spelt apart, so that the dev-imports lint does not take it for test/'s. */
const fromSrc = ['..', '..'].join('/')

/** An import a folder must not make: what it loads, the folder, the probe's source, what the rule's message names. */
type Refused = [what: string, folder: string, source: string, message: RegExp]

const refused: Refused[] = [
  ['the scan side', 'src/api', "export { Scanner } from '../scan/loop/scanner'", /scan side/],
  ['the scan side', 'src/direct', "export { Leases } from '../scan/claims/leases'", /scan side/],
  ['the scan side', 'src/store', "export const load = () => import('../scan/create-scanner')", /scan side/],
  ['the scan side', 'src/on-demand/start', `export { Scanner } from '${fromSrc}/scan/loop/scanner'`, /scan side/],
  ['the SQS SDK', 'src/on-demand/start', "export { SQSClient } from '@aws-sdk/client-sqs'", /SQS SDK/],
  ['the SQS SDK', 'src/api', "export type { SQSClient } from '@aws-sdk/client-sqs'", /SQS SDK/],
  ['the SQS SDK', 'src/direct', "export { SQSClient } from '@aws-sdk/client-sqs'", /SQS SDK/],
  ['the SQS SDK', 'src/store', "export const sdk = require('@aws-sdk/client-sqs')", /SQS SDK/],
  ['the store', 'src/consumer', "export { Keyspace } from '../store/keys'", /the store/],
  ['ioredis', 'src/consumer', "export { Redis } from 'ioredis'", /ioredis/],
  ['the scan side', 'src/consumer', "export { Leases } from '../scan/claims/leases'", /scan side/],
  ['the API handler', 'src/consumer', "export { handler } from '../api/handler'", /API side/],
  ['DelayQueue', 'src/consumer', "export { DelayQueue } from '../direct'", /API side/],
  ['the scan starter', 'src/consumer', "export { ScanStarter } from '../on-demand/start/scan-starter'", /API side/],
  ['the errors', 'src/contract', "export type { ErrorDetail } from '../errors'", /src\/contract imports nothing/],
  ['zod', 'src/contract', "export type { z } from 'zod'", /src\/contract imports nothing/],
  ['a Node module', 'src/contract', "export { createHash } from 'node:crypto'", /src\/contract imports nothing/],
  ['the store', 'src/contract', "export type { JobView } from '../store/job-store'", /src\/contract imports nothing/],
]
/** Each refused import in a probe file of its own, in its folder. */
const refusedProbes = refused.map(([what, folder, source, message], i) => ({
  what,
  folder,
  message,
  probe: { file: `${folder}/probe-refused-${i}.ts`, source: `${source}\n` } satisfies Probe,
}))

// what those folders import today, and must keep importing
const allowed = {
  api: {
    file: 'src/api/probe-allowed.ts',
    source:
      "export { DelayQueue } from '../direct/delay-queue'\nexport { expectedMessageBytes } from '../sqs/envelope'\n",
  },
  direct: {
    file: 'src/direct/probe-allowed.ts',
    source: "export { ScanStarter } from '../on-demand/start/scan-starter'\n",
  },
  onDemandStart: {
    file: 'src/on-demand/start/probe-allowed.ts',
    source: `export type { LambdaClient } from '@aws-sdk/client-lambda'\nexport { Keyspace } from '${fromSrc}/store/keys'\n`,
  },
  contract: {
    file: 'src/contract/probe-allowed.ts',
    source: "export type { PendingJob } from './page'\nexport type { JobView } from './job'\n",
  },
  consumer: {
    file: 'src/consumer/probe-allowed.ts',
    source:
      "export { createSqsClient } from '../sqs/sqs-client'\nexport type { JobMessage } from '../sqs/envelope'\n" +
      "export { SQSClient } from '@aws-sdk/client-sqs'\n",
  },
} satisfies Record<string, Probe>
// two modules that load each other at run time, and two whose cycle is made of type-only imports (erased by the build)
const cycle = {
  runtime: [
    { file: 'src/scan/probe-cycle-a.ts', source: "import { b } from './probe-cycle-b'\nexport const a = () => b\n" },
    { file: 'src/scan/probe-cycle-b.ts', source: "import { a } from './probe-cycle-a'\nexport const b = () => a\n" },
  ],
  typeOnly: [
    {
      file: 'src/scan/probe-types-a.ts',
      source: "import type { B } from './probe-types-b'\nexport type A = { b?: B }\n",
    },
    {
      file: 'src/scan/probe-types-b.ts',
      source: "import type { A } from './probe-types-a'\nexport type B = { a?: A }\n",
    },
  ],
} satisfies Record<string, Probe[]>
const probes = [...refusedProbes.map((r) => r.probe), ...Object.values(allowed), ...cycle.runtime, ...cycle.typeOnly]

let root: string
let findings: { rule: string; file: string; message: string }[]

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sdq-boundaries-'))
  copyFileSync(join(repo, 'biome.jsonc'), join(root, 'biome.jsonc'))
  for (const { file, source } of probes) {
    mkdirSync(dirname(join(root, file)), { recursive: true })
    writeFileSync(join(root, file), source)
  }
  findings = lint(root)
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Biome's findings on the tree at `dir`, from its GitHub reporter (`::error title=<rule>,file=<path>,...::<msg>`). */
function lint(dir: string) {
  let out: string
  try {
    out = execFileSync(biome, ['lint', '--vcs-enabled=false', '--reporter=github', '.'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  } catch (e) {
    // exit code 1 when a rule fires: the findings are still on stdout
    out = (e as { stdout: string }).stdout
  }
  return out
    .split('\n')
    .map((line) => /^::\w+ title=([^,]+),file=([^,]+),.*?::(.*)$/.exec(line))
    .filter((m) => m !== null)
    .map(([, rule, file, message]) => ({ rule: rule!, file: file!.slice(dir.length + 1), message: message! }))
}

function findingsIn(probe: Probe) {
  return findings.filter((f) => f.file === probe.file)
}

describe('import boundaries', () => {
  it.each(refusedProbes)('refuses $what in $folder', ({ probe, message }) => {
    expect(findingsIn(probe)).toEqual([
      expect.objectContaining({ rule: 'lint/style/noRestrictedImports', message: expect.stringMatching(message) }),
    ])
  })

  it('lets the API side use the client, the message envelope and the scan starter, and the consumer the SQS client and SDK', () => {
    expect(findingsIn(allowed.api)).toEqual([])
    expect(findingsIn(allowed.direct)).toEqual([])
    expect(findingsIn(allowed.onDemandStart)).toEqual([])
    expect(findingsIn(allowed.consumer)).toEqual([])
  })

  it('lets src/contract load its own files', () => {
    expect(findingsIn(allowed.contract)).toEqual([])
  })

  it('refuses a runtime import cycle, and lets type-only imports refer to each other', () => {
    for (const probe of cycle.runtime) {
      expect(findingsIn(probe)).toEqual([expect.objectContaining({ rule: 'lint/suspicious/noImportCycles' })])
    }
    for (const probe of cycle.typeOnly) expect(findingsIn(probe)).toEqual([])
  })
})
