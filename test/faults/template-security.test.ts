// Security of the deployed shape, read from the template `serverless package --stage prod` writes (no AWS, no
// network): IAM authorization on every route, one role per function with only what it does, and the Redis URL
// (which may carry a password) only in the functions that talk to Redis.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '../..')
type Resource = { Type: string; Properties: any }
let resources: Record<string, Resource>
let outDir: string

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'sdq-template-'))
  const cli = realpathSync(join(ROOT, 'node_modules/.bin/serverless'))
  await promisify(execFile)(process.execPath, [cli, 'package', '--stage', 'prod', '--package', outDir], {
    cwd: ROOT,
    env: { ...process.env, SDQ_ESBUILD_WORK_FOLDER: `.esbuild/faults-${process.pid}` },
    timeout: 120_000,
  })
  resources = JSON.parse(readFileSync(join(outDir, 'cloudformation-template-update-stack.json'), 'utf8')).Resources
}, 150_000)
afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true })
  rmSync(join(ROOT, `.esbuild/faults-${process.pid}`), { recursive: true, force: true })
})

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type)
const statements = (role: Resource) =>
  role.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement) as { Effect: string; Action: string | string[]; Resource: unknown }[]
const actions = (s: { Action: string | string[] }) => [s.Action].flat()

describe('packaged template (stage prod)', () => {
  it('requires IAM authorization on every API route', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route')
    expect(routes.length).toBeGreaterThanOrEqual(6)
    for (const [, route] of routes) expect(route.Properties.AuthorizationType).toBe('AWS_IAM')
  })

  it('gives each function a role of its own, with no wildcard actions and "*" resources only for VPC network interfaces', () => {
    const functions = ofType('AWS::Lambda::Function')
    const roles = functions.map(([, f]) => JSON.stringify(f.Properties.Role))
    expect(new Set(roles).size).toBe(functions.length)
    for (const [, role] of ofType('AWS::IAM::Role')) {
      for (const s of statements(role)) {
        for (const a of actions(s)) expect(a).not.toMatch(/\*/)
        if (s.Resource === '*') for (const a of actions(s)) expect(a).toMatch(/^ec2:\w+NetworkInterface|^ec2:\w+PrivateIpAddresses$/)
      }
    }
  })

  it('lets only the scan function send to SQS, and only to the target queues (never their DLQs)', () => {
    const byFunction = Object.fromEntries(
      ofType('AWS::Lambda::Function').map(([name, f]) => [name, resources[f.Properties.Role['Fn::GetAtt'][0]]!]),
    )
    const sqsActions = (role: Resource) => statements(role).flatMap((s) => actions(s).filter((a) => a.startsWith('sqs:')))
    expect(sqsActions(byFunction.ApiLambdaFunction!)).toEqual([])
    expect(sqsActions(byFunction.ScanLambdaFunction!)).toEqual(['sqs:SendMessage'])
    const send = statements(byFunction.ScanLambdaFunction!).find((s) => actions(s).includes('sqs:SendMessage'))!
    const targets = [send.Resource].flat().map((r: any) => r['Fn::GetAtt'][0] as string)
    expect(targets.length).toBeGreaterThan(0)
    for (const t of targets) {
      expect(resources[t]!.Type).toBe('AWS::SQS::Queue')
      expect(t).not.toMatch(/Dlq$/)
    }
  })

  it('hands the Redis URL (it may carry a password) only to the functions that use Redis', () => {
    const withRedisUrl = ofType('AWS::Lambda::Function')
      .filter(([, f]) => f.Properties.Environment?.Variables?.REDIS_URL !== undefined)
      .map(([name]) => name)
      .sort()
    expect(withRedisUrl).toEqual(['ApiLambdaFunction', 'ScanLambdaFunction'])
  })
})
