// osls plugin: `serverless package` and `serverless deploy` refuse a stack whose API anyone could call. The `local`
// stage turns authorization off (apiAuth=none) for serverless-offline, and a packaging of that stage, or of any stage
// with --param apiAuth=none, would otherwise build an open API without a word. `serverless offline` and
// `serverless print` never run the package or deploy lifecycle, so the local stack keeps its open API.
// `--param allowOpenApi=true` packages an open API on purpose; the template's Description then says so.
//
// Two looks: the resolved functions before anything is bundled (fails in a second), and the compiled template just
// before it is written (every route and Function URL, including ones added by hand under `resources`).
//
// Written in CommonJS with erasable types only, like deploy/target-queues.ts (osls loads plugins with require()).

// biome-ignore lint/suspicious/noExplicitAny: serverless.yml and CloudFormation as plain JSON, read field by field
type GuardJson = Record<string, any>

interface GuardServerless {
  service: {
    custom?: GuardJson
    functions?: Record<string, GuardJson>
    provider: { compiledCloudFormationTemplate?: GuardJson }
  }
  classes: { Error: new (message: string) => Error }
}

/** The entrances of the resolved `functions` that need no authorization ("POST /jobs", "Function URL of api"). */
function openInConfig(functions: Record<string, GuardJson>): string[] {
  const open: string[] = []
  for (const [key, fn] of Object.entries(functions)) {
    for (const event of fn.events ?? []) {
      const httpApi = event?.httpApi
      if (httpApi && !httpApi.authorizer) open.push(httpApi === '*' ? '* (all routes)' : routeOf(httpApi))
      const http = event?.http
      if (http && !http.authorizer && !http.private) open.push(`REST ${routeOf(http)}`)
    }
    const url = fn.url
    if (url && (url === true || url.authorizer !== 'aws_iam')) open.push(`the Function URL of ${key}`)
  }
  return open
}

const routeOf = (event: GuardJson | string) =>
  typeof event === 'string' ? event : `${String(event.method).toUpperCase()} ${event.path}`

/** The same in the compiled template: routes, REST methods and Function URLs with no authorization. */
function openInTemplate(template: GuardJson): string[] {
  const open: string[] = []
  for (const r of Object.values<GuardJson>(template.Resources ?? {})) {
    const p = r.Properties ?? {}
    if (r.Type === 'AWS::ApiGatewayV2::Route' && (p.AuthorizationType ?? 'NONE') === 'NONE') open.push(p.RouteKey)
    if (r.Type === 'AWS::ApiGateway::Method' && (p.AuthorizationType ?? 'NONE') === 'NONE' && !p.ApiKeyRequired)
      open.push(`REST ${p.HttpMethod}`)
    if (r.Type === 'AWS::Lambda::Url' && p.AuthType !== 'AWS_IAM') open.push('a Function URL')
  }
  return open
}

class ServerlessOpenApiGuard {
  hooks: Record<string, () => void>

  constructor(serverless: GuardServerless) {
    const refuse = (open: string[]) => {
      const allowed = allowsOpenApi(serverless)
      if (open.length && !allowed) {
        throw new serverless.classes.Error(
          `The API would be open to anyone: ${listOpen(open)} without authorization. The apiAuth parameter ` +
            'sets it: "none" is the setting of stage local, for serverless-offline only. Package with ' +
            '--param apiAuth=aws_iam (the default of every other stage), or add --param allowOpenApi=true to ' +
            'package an open API on purpose.',
        )
      }
      return open.length > 0
    }
    this.hooks = {
      'before:package:cleanup': () => void refuse(openInConfig(serverless.service.functions ?? {})),
      // `deploy --package <dir>` deploys an earlier package without the package lifecycle.
      'before:deploy:deploy': () => void refuse(openInConfig(serverless.service.functions ?? {})),
      // After osls merged serverless.yml's `resources` into the template, before it writes it.
      'before:aws:package:finalize:saveServiceState': () => {
        const template = serverless.service.provider.compiledCloudFormationTemplate ?? {}
        const open = openInTemplate(template)
        if (refuse(open)) {
          // CloudFormation caps a Description at 1,024 characters: the count, not the list.
          template.Description = (
            `OPEN API (allowOpenApi=true): ${open.length} route(s) or URL(s) need no authorization; anyone who ` +
            `can reach them can schedule, read and cancel jobs. ${template.Description ?? ''}`
          )
            .trim()
            .slice(0, 1024)
        }
      },
    }
  }
}

function listOpen(open: string[]): string {
  const shown = open.slice(0, 4).join(', ')
  return open.length > 4 ? `${shown} and ${open.length - 4} more` : shown
}

/** custom.allowOpenApi (from the allowOpenApi parameter): true or false, anything else is refused. */
function allowsOpenApi(serverless: GuardServerless): boolean {
  const value = serverless.service.custom?.allowOpenApi
  if (value === true || value === 'true') return true
  if (value === undefined || value === false || value === 'false' || value === '') return false
  throw new serverless.classes.Error(`The allowOpenApi parameter must be true or false, got ${JSON.stringify(value)}`)
}

module.exports = ServerlessOpenApiGuard
