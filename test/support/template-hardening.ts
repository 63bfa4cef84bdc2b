// What a packaged template must hold for the stack to be safe to run and to change, read from the template as
// CloudFormation gets it (the rules cdk-nag and cfn-lint look at, and the ones a VPC without NAT needs):
// - every queue (target and DLQ) has a queue policy that denies any request not made over TLS (AwsSolutions-SQS4),
//   and is kept (DeletionPolicy and UpdateReplacePolicy Retain) when the stack deletes or replaces it;
// - every HTTP API stage throttles its default route (rate and burst);
// - the scan role may invoke the scan function exactly where fan-out can run (SCAN_MAX_WORKERS > 0 and no FIFO queue
//   in QUEUES, functions/scan.ts);
// - where the stack creates VPC endpoints, there is one for Lambda whenever a function may invoke Lambda;
// - every role of a function in a VPC holds what Lambda uses to manage its network interfaces.
import { type Finding, finding, type Json, type Template } from './cfn-template'

const ofType = (t: Template, type: string) => Object.entries<Json>(t.Resources ?? {}).filter(([, r]) => r.Type === type)
const getAttId = (value: Json): string | undefined =>
  Array.isArray(value?.['Fn::GetAtt']) ? value['Fn::GetAtt'][0] : undefined
const statementsOf = (doc: Json): Json[] => [doc?.Statement ?? []].flat()

/** The Lambda permissions of AWS's list for VPC functions (AWSLambdaVPCAccessExecutionRole, less the log actions). */
export const VPC_ACCESS_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
]

const deniesPlainHttp = (s: Json, queueId: string) =>
  s.Effect === 'Deny' &&
  (s.Principal === '*' || s.Principal?.AWS === '*') &&
  [s.Action].flat().some((a: string) => a === 'sqs:*' || a === '*') &&
  [s.Resource].flat().some((r: Json) => r === '*' || getAttId(r) === queueId) &&
  String(s.Condition?.Bool?.['aws:SecureTransport']) === 'false'

export function queueFindings(t: Template): Finding[] {
  const findings: Finding[] = []
  const policies = ofType(t, 'AWS::SQS::QueuePolicy')
  for (const [id, q] of ofType(t, 'AWS::SQS::Queue')) {
    const own = policies.filter(([, p]) => (p.Properties.Queues ?? []).some((ref: Json) => ref?.Ref === id))
    if (!own.some(([, p]) => statementsOf(p.Properties.PolicyDocument).some((s) => deniesPlainHttp(s, id))))
      findings.push(finding(id, 'QueuePolicy', 'queue accepts requests without TLS', 'no Deny on aws:SecureTransport'))
    for (const attribute of ['DeletionPolicy', 'UpdateReplacePolicy'])
      if (q[attribute] !== 'Retain')
        findings.push(finding(id, attribute, 'queue deleted with its messages', String(q[attribute])))
  }
  return findings
}

/** A limit above 0, given as a number or as a Number parameter that cannot go below 1. */
function positiveLimit(t: Template, value: Json): boolean {
  const parameter = typeof value?.Ref === 'string' ? t.Parameters?.[value.Ref] : undefined
  if (parameter) return parameter.Type === 'Number' && Number(parameter.Default) > 0 && Number(parameter.MinValue) >= 1
  return Number(value) > 0
}

export function throttleFindings(t: Template): Finding[] {
  return ofType(t, 'AWS::ApiGatewayV2::Stage').flatMap(([id, stage]) => {
    const s = stage.Properties.DefaultRouteSettings ?? {}
    return positiveLimit(t, s.ThrottlingRateLimit) && positiveLimit(t, s.ThrottlingBurstLimit)
      ? []
      : [finding(id, 'Properties.DefaultRouteSettings', 'API stage not throttled', JSON.stringify(s))]
  })
}

/** Role logical id -> the statements of its inline policies and of the AWS::IAM::Policy resources attached to it. */
function roleStatements(t: Template): Map<string, [string, Json][]> {
  const byRole = new Map<string, [string, Json][]>()
  const add = (role: string, source: string, doc: Json) =>
    byRole.set(role, [...(byRole.get(role) ?? []), ...statementsOf(doc).map((s): [string, Json] => [source, s])])
  for (const [id, r] of ofType(t, 'AWS::IAM::Role'))
    for (const p of r.Properties.Policies ?? []) add(id, id, p.PolicyDocument)
  for (const [id, p] of ofType(t, 'AWS::IAM::Policy'))
    for (const role of p.Properties.Roles ?? []) if (role?.Ref) add(role.Ref, id, p.Properties.PolicyDocument)
  return byRole
}

const allows = (s: Json, action: string) => s.Effect === 'Allow' && [s.Action].flat().includes(action)

export function fanOutRightFindings(t: Template): Finding[] {
  const scan = t.Resources.ScanLambdaFunction?.Properties
  if (!scan) return []
  const env = scan.Environment.Variables
  const queues = [env.QUEUES?.['Fn::Join']?.[1] ?? []].flat().filter((p: Json) => typeof p === 'string')
  const fifo = queues.some((p: string) => p.replace(/=$/, '').endsWith('.fifo'))
  const canFanOut = Number(env.SCAN_MAX_WORKERS ?? 4) > 0 && !fifo
  const scanRole = getAttId(scan.Role)!
  const grants = (roleStatements(t).get(scanRole) ?? []).filter(
    ([, s]) =>
      allows(s, 'lambda:InvokeFunction') && [s.Resource].flat().some((r) => getAttId(r) === 'ScanLambdaFunction'),
  )
  if (canFanOut && grants.length === 0)
    return [finding(scanRole, 'Policies', 'fan-out can run but the scan may not start workers', '')]
  if (!canFanOut)
    return grants.map(([source]) =>
      finding(source, 'PolicyDocument', 'invoke right where fan-out cannot run', fifo ? 'FIFO target' : 'no workers'),
    )
  return []
}

export function lambdaRouteFindings(t: Template): Finding[] {
  const endpoints = ofType(t, 'AWS::EC2::VPCEndpoint').map(([, e]) => JSON.stringify(e.Properties.ServiceName))
  if (endpoints.length === 0) return [] // the VPC's own endpoints or NAT gateway: not in the template
  const invokers = [...roleStatements(t)].filter(([, statements]) =>
    statements.some(([, s]) => allows(s, 'lambda:InvokeFunction')),
  )
  if (invokers.length === 0 || endpoints.some((e) => /\.lambda"/.test(e))) return []
  return invokers.map(([role]) =>
    finding(role, 'lambda:InvokeFunction', 'invokes Lambda from the VPC without a Lambda endpoint', endpoints.join()),
  )
}

export function vpcAccessFindings(t: Template): Finding[] {
  const statements = roleStatements(t)
  return ofType(t, 'AWS::Lambda::Function')
    .filter(([, f]) => f.Properties.VpcConfig)
    .flatMap(([id, f]) => {
      const role = getAttId(f.Properties.Role)!
      const missing = VPC_ACCESS_ACTIONS.filter((a) => !(statements.get(role) ?? []).some(([, s]) => allows(s, a)))
      return missing.length
        ? [finding(role, 'Policies', 'VPC function lacks a network permission', `${id}: ${missing}`)]
        : []
    })
}

export const hardeningFindings = (t: Template): Finding[] => [
  ...queueFindings(t),
  ...throttleFindings(t),
  ...fanOutRightFindings(t),
  ...lambdaRouteFindings(t),
  ...vpcAccessFindings(t),
]
