// `serverless package` (and so `deploy`) refuses an API without authorization unless allowOpenApi=true says it is on
// purpose (deploy/open-api-guard.ts); serverless-offline's local stage keeps its open API (`serverless print`, which
// local/service-config.ts runs, is checked in template.test.ts). Two refusals that end before anything is bundled and
// one full packaging, run like a clean CI machine (test/support/sls.ts).
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageTemplate } from '../support/sls'

const root = resolve(__dirname, '../..')
// Loaded as osls loads its plugins: require(), Node's own type stripping.
const OpenApiGuard = createRequire(__filename)('../../deploy/open-api-guard.ts')

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => '(packaged)',
    (e: Error) => e.message,
  )

describe('serverless package of an API without authorization', () => {
  it('is refused for stage local and for apiAuth=none, naming the apiAuth parameter and the way out', async () => {
    const local = await refusal(packageTemplate(root, 'local'))
    // apiAuth applies to the HTTP API's routes (a Function URL is always AWS_IAM here)
    const prodOpen = await refusal(
      packageTemplate(root, 'prod', ['--param=apiEndpoint=httpApi', '--param=apiAuth=none']),
    )

    for (const message of [local, prodOpen]) {
      expect(message).toContain('The API would be open to anyone: POST /jobs')
      expect(message).toContain('apiAuth')
      expect(message).toContain('--param allowOpenApi=true')
    }
  }, 120_000)

  it('packages with allowOpenApi=true, and the stack says it is open in its Description', async () => {
    const template = await packageTemplate(root, 'local', ['--param=allowOpenApi=true'])

    const routes = Object.values<any>(template.Resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
    expect(routes.length).toBeGreaterThan(0)
    for (const route of routes) expect(route.Properties.AuthorizationType ?? 'NONE').toBe('NONE')
    // every route the template compiled is counted as open, none missed
    expect(template.Description).toMatch(
      new RegExp(`^OPEN API \\(allowOpenApi=true\\): ${routes.length} route\\(s\\) or URL\\(s\\) need no auth`),
    )
    expect(template.Description.length).toBeLessThanOrEqual(1024) // CloudFormation's limit
  }, 120_000)
})

describe('the guard on the compiled template (routes and URLs added by hand under resources)', () => {
  function guard(resources: Record<string, any>, allowOpenApi?: unknown) {
    const template: Record<string, any> = { Description: 'stack', Resources: resources }
    const serverless = {
      service: { custom: { allowOpenApi }, functions: {}, provider: { compiledCloudFormationTemplate: template } },
      classes: { Error },
    }
    new OpenApiGuard(serverless).hooks['before:aws:package:finalize:saveServiceState']()
    return template
  }

  it('refuses a route or a Function URL with no authorization, and lets signed ones through', () => {
    const route = (auth?: string) => ({
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: { RouteKey: 'GET /extra', ...(auth ? { AuthorizationType: auth } : {}) },
    })
    const url = (auth: string) => ({ Type: 'AWS::Lambda::Url', Properties: { AuthType: auth } })

    expect(() => guard({ Extra: route() })).toThrow(/GET \/extra without authorization.*apiAuth/)
    expect(() => guard({ ExtraUrl: url('NONE') })).toThrow(/a Function URL without authorization/)
    expect(() => guard({ Extra: route() }, 'yes')).toThrow(/allowOpenApi parameter must be true or false/)
    expect(guard({ Extra: route('AWS_IAM'), ExtraUrl: url('AWS_IAM') }).Description).toBe('stack')
    expect(guard({ Extra: route(), ExtraUrl: url('NONE') }, 'true').Description).toMatch(/^OPEN API .*: 2 route/)
  })
})
