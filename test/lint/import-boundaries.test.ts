// The import boundaries in biome.jsonc (the API side never loads the scan side or the SQS SDK; the consumer toolkit
// never loads the store, ioredis, the scan side or the API side) fire on a forbidden import, and stay quiet on the
// imports those folders do need. Biome lints probe files in a temporary copy of the layout, with the repo's own
// biome.jsonc, so the tree itself is never touched.
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

const probes = {
  apiToScan: { file: 'src/api/probe-scan.ts', source: "export { Scanner } from '../scan/loop/scanner'\n" },
  apiToSqsSdk: { file: 'src/api/probe-sqs.ts', source: "export type { SQSClient } from '@aws-sdk/client-sqs'\n" },
  directToScan: { file: 'src/direct/probe-scan.ts', source: "export { Leases } from '../scan/claims/leases'\n" },
  directToSqsSdk: { file: 'src/direct/probe-sqs.ts', source: "export { SQSClient } from '@aws-sdk/client-sqs'\n" },
  storeToScan: {
    file: 'src/store/probe-scan.ts',
    source: "export const load = () => import('../scan/create-scanner')\n",
  },
  storeToSqsSdk: { file: 'src/store/probe-sqs.ts', source: "export const sdk = require('@aws-sdk/client-sqs')\n" },
  consumerToStore: { file: 'src/consumer/probe-store.ts', source: "export { Keyspace } from '../store/keys'\n" },
  consumerToIoredis: { file: 'src/consumer/probe-ioredis.ts', source: "export { Redis } from 'ioredis'\n" },
  consumerToScan: { file: 'src/consumer/probe-scan.ts', source: "export { Leases } from '../scan/claims/leases'\n" },
  consumerToApi: { file: 'src/consumer/probe-api.ts', source: "export { handler } from '../api/handler'\n" },
  consumerToDirect: { file: 'src/consumer/probe-direct.ts', source: "export { DelayQueue } from '../direct'\n" },
  // what those folders import today, and must keep importing
  apiAllowed: {
    file: 'src/api/probe-allowed.ts',
    source:
      "export { DelayQueue } from '../direct/delay-queue'\nexport { expectedMessageBytes } from '../sqs/envelope'\n",
  },
  consumerAllowed: {
    file: 'src/consumer/probe-allowed.ts',
    source:
      "export { createSqsClient } from '../sqs/sqs-client'\nexport type { JobMessage } from '../sqs/envelope'\n" +
      "export { SQSClient } from '@aws-sdk/client-sqs'\n",
  },
} satisfies Record<string, Probe>

let root: string
let findings: { rule: string; file: string; message: string }[]

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sdq-boundaries-'))
  copyFileSync(join(repo, 'biome.jsonc'), join(root, 'biome.jsonc'))
  for (const { file, source } of Object.values(probes)) {
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
  it.each([
    ['the scan side', 'src/api', probes.apiToScan, /scan side/],
    ['the scan side', 'src/direct', probes.directToScan, /scan side/],
    ['the scan side', 'src/store', probes.storeToScan, /scan side/],
    ['the SQS SDK', 'src/api', probes.apiToSqsSdk, /SQS SDK/],
    ['the SQS SDK', 'src/direct', probes.directToSqsSdk, /SQS SDK/],
    ['the SQS SDK', 'src/store', probes.storeToSqsSdk, /SQS SDK/],
    ['the store', 'src/consumer', probes.consumerToStore, /the store/],
    ['ioredis', 'src/consumer', probes.consumerToIoredis, /ioredis/],
    ['the scan side', 'src/consumer', probes.consumerToScan, /scan side/],
    ['the API handler', 'src/consumer', probes.consumerToApi, /API side/],
    ['DelayQueue', 'src/consumer', probes.consumerToDirect, /API side/],
  ])('refuses %s in %s', (_what, _folder, probe, message) => {
    expect(findingsIn(probe)).toEqual([
      expect.objectContaining({ rule: 'lint/style/noRestrictedImports', message: expect.stringMatching(message) }),
    ])
  })

  it('lets the API side use the client and the message envelope, and the consumer the SQS client and SDK', () => {
    expect(findingsIn(probes.apiAllowed)).toEqual([])
    expect(findingsIn(probes.consumerAllowed)).toEqual([])
  })
})
