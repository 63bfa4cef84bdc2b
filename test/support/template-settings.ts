// Settings of a packaged template that must fit together, read from the template as CloudFormation gets it:
// - each target queue's visibility timeout is at least 6 x the timeout of the Lambda that consumes it (Lambda's
//   guidance for SQS event sources; the example consumer's timeout stands for every consumer: consumerTimeout);
// - the scan function loops until SAFETY_MARGIN_MS before its timeout, and that loop covers the schedule's interval
//   (no minute without a scanner) within Lambda's 900 s limit;
// - in on-demand mode the API may invoke the scan function, by the name it has in SCAN_FUNCTION_NAME, and nothing else;
//   in continuous mode it may invoke nothing;
// - every function's log group, and the API's access log group, keeps logs for a limited time;
// - every function's environment fits Lambda's 4 KB once CloudFormation has filled in the queue URLs and the Redis URL
//   (estimated at their longest: the longest Region name, a 12-digit account; a Redis URL of 512 bytes).
import { type Finding, finding, type Json, type Template } from './cfn-template'

const VISIBILITY_FACTOR = 6
const LAMBDA_MAX_TIMEOUT_S = 900

const getAttId = (value: Json): string | undefined =>
  Array.isArray(value?.['Fn::GetAtt']) ? value['Fn::GetAtt'][0] : undefined

const ofType = (t: Template, type: string) => Object.entries<Json>(t.Resources ?? {}).filter(([, r]) => r.Type === type)

/** ms of a schedule's rate(N unit) expression. */
export function rateMs(expression: string): number | undefined {
  const m = expression.match(/^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/)
  if (!m) return undefined
  const unit = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[m[2]!.replace(/s$/, '') as 'minute']
  return Number(m[1]) * unit
}

export function visibilityFindings(t: Template): Finding[] {
  const findings: Finding[] = []
  const consumers = new Map<string, string>()
  for (const [, mapping] of ofType(t, 'AWS::Lambda::EventSourceMapping')) {
    const queue = getAttId(mapping.Properties.EventSourceArn)
    const fn = getAttId(mapping.Properties.FunctionName)
    if (queue && fn) consumers.set(queue, fn)
  }
  const exampleConsumer = t.Resources.ConsumerLambdaFunction?.Properties.Timeout ?? 3
  for (const [id, q] of ofType(t, 'AWS::SQS::Queue')) {
    const role = (q.Properties.Tags ?? []).find((tag: Json) => tag.Key === 'sdq:role')?.Value
    if (role !== 'target') continue
    const consumer = consumers.get(id)
    const timeout = consumer ? (t.Resources[consumer].Properties.Timeout ?? 3) : exampleConsumer
    const visibility = q.Properties.VisibilityTimeout ?? 30
    if (visibility < VISIBILITY_FACTOR * timeout)
      findings.push(
        finding(
          id,
          'Properties.VisibilityTimeout',
          'visibility timeout under 6 x the consumer timeout',
          `${visibility}`,
        ),
      )
  }
  return findings
}

export function scanLoopFindings(t: Template): Finding[] {
  const scan = t.Resources.ScanLambdaFunction?.Properties
  if (!scan) return [finding('ScanLambdaFunction', '', 'scan function missing', '')]
  const findings: Finding[] = []
  const timeoutMs = scan.Timeout * 1000
  const marginMs = Number(scan.Environment.Variables.SAFETY_MARGIN_MS)
  const loopMs = timeoutMs - marginMs
  const [, rule] =
    ofType(t, 'AWS::Events::Rule').find(([, r]) =>
      (r.Properties.Targets ?? []).some((target: Json) => getAttId(target.Arn) === 'ScanLambdaFunction'),
    ) ?? []
  const everyMs = rule ? rateMs(rule.Properties.ScheduleExpression) : undefined
  if (!rule || everyMs === undefined)
    return [finding('ScanLambdaFunction', 'events', 'scan function has no rate() schedule', '')]
  if (scan.Timeout > LAMBDA_MAX_TIMEOUT_S)
    findings.push(finding('ScanLambdaFunction', 'Properties.Timeout', 'over Lambda’s 900 s', String(scan.Timeout)))
  if (!(marginMs > 0 && marginMs < timeoutMs))
    findings.push(finding('ScanLambdaFunction', 'SAFETY_MARGIN_MS', 'margin not inside the timeout', `${marginMs}`))
  if (loopMs < everyMs)
    findings.push(
      finding('ScanLambdaFunction', 'Properties.Timeout', 'the loop ends before the next run starts', `${loopMs} ms`),
    )
  return findings
}

export function invokeRightFindings(t: Template): Finding[] {
  const api = t.Resources.ApiLambdaFunction?.Properties
  const scan = t.Resources.ScanLambdaFunction?.Properties
  if (!api || !scan) return []
  const apiRole = getAttId(api.Role)
  const grants: [string, Json][] = []
  for (const [id, r] of Object.entries<Json>(t.Resources)) {
    const docs =
      r.Type === 'AWS::IAM::Policy' && r.Properties.Roles?.some((role: Json) => role.Ref === apiRole)
        ? [r.Properties.PolicyDocument]
        : id === apiRole
          ? (r.Properties.Policies ?? []).map((p: Json) => p.PolicyDocument)
          : []
    for (const doc of docs)
      for (const s of [doc.Statement].flat())
        if ([s.Action].flat().some((a: string) => a.startsWith('lambda:Invoke'))) grants.push([id, s])
  }
  const mode = api.Environment.Variables.SCAN_MODE
  if (mode !== 'on-demand')
    return grants.map(([id]) => finding(id, 'PolicyDocument', 'API may invoke a function in continuous mode', mode))
  const findings: Finding[] = []
  if (api.Environment.Variables.SCAN_FUNCTION_NAME !== scan.FunctionName)
    findings.push(finding('ApiLambdaFunction', 'SCAN_FUNCTION_NAME', 'names another function', scan.FunctionName))
  if (grants.length === 0)
    findings.push(finding(String(apiRole), 'Policies', 'API may not invoke the scan function', ''))
  for (const [id, s] of grants)
    for (const resource of [s.Resource].flat())
      if (getAttId(resource) !== 'ScanLambdaFunction')
        findings.push(finding(id, 'Resource', 'invoke right names another resource', JSON.stringify(resource)))
  return findings
}

export function retentionFindings(t: Template): Finding[] {
  const findings: Finding[] = []
  const groups = ofType(t, 'AWS::Logs::LogGroup')
  for (const [id, g] of groups)
    if (!g.Properties.RetentionInDays) findings.push(finding(id, 'Properties.RetentionInDays', 'logs kept forever', ''))
  for (const [id, f] of ofType(t, 'AWS::Lambda::Function')) {
    const name = `/aws/lambda/${f.Properties.FunctionName}`
    if (!groups.some(([, g]) => g.Properties.LogGroupName === name))
      findings.push(finding(id, 'LogGroup', 'no log group of its own (Lambda would create one kept forever)', name))
  }
  return findings
}

const LAMBDA_ENVIRONMENT_BYTES = 4096
const LONGEST_REGION = 'ap-southeast-5'

/** The longest text a value becomes at deploy time (Refs to queues as their URLs, other Refs as `otherRef` bytes). */
function estimatedText(t: Template, value: Json): string {
  if (typeof value !== 'object' || value === null) return String(value)
  if (value.Ref !== undefined) {
    const r = t.Resources[value.Ref]
    if (r?.Type === 'AWS::SQS::Queue')
      return `https://sqs.${LONGEST_REGION}.amazonaws.com/123456789012/${r.Properties.QueueName}`
    return 'x'.repeat(value.Ref === 'RedisUrl' ? 512 : 256)
  }
  if (Array.isArray(value['Fn::Join']))
    return value['Fn::Join'][1].map((part: Json) => estimatedText(t, part)).join(value['Fn::Join'][0])
  return 'x'.repeat(256)
}

export function environmentFindings(t: Template): Finding[] {
  const findings: Finding[] = []
  for (const [id, f] of ofType(t, 'AWS::Lambda::Function')) {
    const vars = Object.entries<Json>(f.Properties.Environment?.Variables ?? {})
    const bytes = vars.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(estimatedText(t, v)), 0)
    if (bytes > LAMBDA_ENVIRONMENT_BYTES)
      findings.push(finding(id, 'Properties.Environment', 'environment over Lambda’s 4 KB when filled in', `${bytes}`))
  }
  return findings
}

export const crossSettingFindings = (t: Template): Finding[] => [
  ...environmentFindings(t),
  ...visibilityFindings(t),
  ...scanLoopFindings(t),
  ...invokeRightFindings(t),
  ...retentionFindings(t),
]
