// The references inside a CloudFormation template, and its limits: every Ref and every ${...} of an Fn::Sub names a
// parameter, a resource or a pseudo parameter; every Fn::GetAtt names an attribute its resource's type has (from the
// resource specification, cfn-spec.ts); conditions and DependsOn targets exist; export names are unique and valid;
// the template stays within CloudFormation's quotas.
import type { SpecDatabase } from '@aws-cdk/service-spec-types'
import { resourceSpec, specDatabase } from './cfn-spec'
import { type Finding, finding, intrinsicName, type Json, type Template, walk } from './cfn-template'

export const PSEUDO_PARAMETERS = new Set([
  'AWS::AccountId',
  'AWS::NotificationARNs',
  'AWS::NoValue',
  'AWS::Partition',
  'AWS::Region',
  'AWS::StackId',
  'AWS::StackName',
  'AWS::URLSuffix',
])

/**
 * CloudFormation's quotas (AWS CloudFormation User Guide, "Understand CloudFormation quotas"). osls uploads the
 * template to its deployment bucket and deploys it by URL, so the S3 body limit applies, not the 51,200 bytes of a
 * body passed in the request.
 */
export const LIMITS = {
  templateBytesS3: 1_000_000,
  resources: 500,
  outputs: 200,
  parameters: 200,
  logicalIdChars: 255,
  descriptionBytes: 1024,
  exportNameChars: 255,
}

const TOP_LEVEL = new Set([
  'AWSTemplateFormatVersion',
  'Description',
  'Metadata',
  'Parameters',
  'Rules',
  'Mappings',
  'Conditions',
  'Transform',
  'Resources',
  'Outputs',
])

/** Every reference in Resources, Outputs and Conditions resolves. */
export function checkReferences(template: Template, db = specDatabase()): Finding[] {
  const findings: Finding[] = []
  const resources: Record<string, Json> = template.Resources ?? {}
  const names = new Set([...Object.keys(template.Parameters ?? {}), ...Object.keys(resources), ...PSEUDO_PARAMETERS])
  const conditions = new Set(Object.keys(template.Conditions ?? {}))
  const sections: [string, Record<string, Json>][] = [
    ['Resources', resources],
    ['Outputs', template.Outputs ?? {}],
    ['Conditions', template.Conditions ?? {}],
  ]
  for (const [section, entries] of sections) {
    for (const [id, entry] of Object.entries(entries)) {
      const owner = section === 'Resources' ? id : `${section}.${id}`
      if (section !== 'Conditions' && entry?.Condition !== undefined && !conditions.has(entry.Condition))
        findings.push(finding(owner, 'Condition', 'condition does not exist', String(entry.Condition)))
      for (const target of [entry?.DependsOn ?? []].flat())
        if (section === 'Resources' && !resources[target])
          findings.push(finding(owner, 'DependsOn', 'DependsOn names no resource', String(target)))
      walk(entry, '', (node, path) => {
        const fn = intrinsicName(node)
        if (!fn) return
        const at = path || '.'
        if (fn === 'Ref' && !names.has(node.Ref))
          findings.push(finding(owner, at, 'Ref names no parameter, resource or pseudo parameter', String(node.Ref)))
        if (fn === 'Fn::GetAtt') findings.push(...checkGetAtt(owner, at, node['Fn::GetAtt'], resources, db))
        if (fn === 'Fn::Sub') findings.push(...checkSub(owner, at, node['Fn::Sub'], names, resources, db))
        if (fn === 'Fn::If' && !conditions.has(node['Fn::If']?.[0]))
          findings.push(finding(owner, at, 'Fn::If names no condition', String(node['Fn::If']?.[0])))
        if (fn === 'Condition' && section === 'Conditions' && !conditions.has(node.Condition))
          findings.push(finding(owner, at, 'condition does not exist', String(node.Condition)))
      })
    }
  }
  return findings
}

/** An Fn::GetAtt: [logicalId, attribute] or "logicalId.attribute". */
export function checkGetAtt(
  owner: string,
  path: string,
  args: Json,
  resources: Record<string, Json>,
  db: SpecDatabase,
): Finding[] {
  const [id, attribute] = Array.isArray(args) ? args : String(args).split(/\.(.*)/s)
  const target = resources[id]
  if (!target) return [finding(owner, path, 'Fn::GetAtt names no resource', String(id))]
  if (typeof attribute !== 'string') return [] // computed by a function: resolved at deploy time
  if (String(target.Type).startsWith('Custom::')) return []
  const spec = resourceSpec(target.Type, db)
  if (spec && !(attribute in spec.attributes))
    return [finding(owner, path, 'Fn::GetAtt names an attribute the type does not have', `${target.Type}.${attribute}`)]
  return []
}

/** The ${...} of an Fn::Sub string: its own variables, parameters, resources (and their attributes), pseudo ones. */
export function checkSub(
  owner: string,
  path: string,
  args: Json,
  names: Set<string>,
  resources: Record<string, Json>,
  db: SpecDatabase,
): Finding[] {
  const [text, vars] = Array.isArray(args) ? args : [args, {}]
  if (typeof text !== 'string') return []
  const findings: Finding[] = []
  for (const m of text.matchAll(/\$\{([^}]*)\}/g)) {
    const name = m[1]!
    if (name.startsWith('!') || name in (vars ?? {}) || names.has(name)) continue
    const dot = name.indexOf('.')
    if (dot > 0 && resources[name.slice(0, dot)]) {
      findings.push(...checkGetAtt(owner, `${path} \${${name}}`, name, resources, db))
      continue
    }
    findings.push(finding(owner, path, 'Fn::Sub variable resolves to nothing', `\${${name}}`))
  }
  return findings
}

/** Export names: unique in the template, only alphanumerics, colons and hyphens, at most 255 characters. */
export function checkExports(template: Template): Finding[] {
  const findings: Finding[] = []
  const seen = new Map<string, string>()
  for (const [id, output] of Object.entries<Json>(template.Outputs ?? {})) {
    if (output.Value === undefined) findings.push(finding(`Outputs.${id}`, 'Value', 'output without a value', id))
    const name = output.Export?.Name
    if (name === undefined) continue
    if (typeof name !== 'string') continue // built by a function at deploy time
    const owner = `Outputs.${id}`
    if (!/^[A-Za-z0-9:-]+$/.test(name))
      findings.push(finding(owner, 'Export.Name', 'export name has characters CloudFormation refuses', name))
    if (name.length > LIMITS.exportNameChars)
      findings.push(finding(owner, 'Export.Name', `export name over ${LIMITS.exportNameChars} characters`, name))
    const other = seen.get(name)
    if (other) findings.push(finding(owner, 'Export.Name', 'export name not unique', `also exported by ${other}`))
    seen.set(name, id)
  }
  return findings
}

/** The template's sections, counts and sizes against CloudFormation's quotas. */
export function checkLimits(template: Template): Finding[] {
  const findings: Finding[] = []
  const over = (what: string, n: number, max: number) =>
    n > max ? [finding('Template', what, `over the quota of ${max}`, String(n))] : []
  for (const key of Object.keys(template))
    if (!TOP_LEVEL.has(key)) findings.push(finding('Template', key, 'unknown template section', key))
  findings.push(...over('size in bytes', Buffer.byteLength(JSON.stringify(template, null, 2)), LIMITS.templateBytesS3))
  findings.push(...over('Resources', Object.keys(template.Resources ?? {}).length, LIMITS.resources))
  findings.push(...over('Outputs', Object.keys(template.Outputs ?? {}).length, LIMITS.outputs))
  findings.push(...over('Parameters', Object.keys(template.Parameters ?? {}).length, LIMITS.parameters))
  findings.push(...over('Description bytes', Buffer.byteLength(template.Description ?? ''), LIMITS.descriptionBytes))
  for (const section of ['Resources', 'Outputs', 'Parameters', 'Conditions'])
    for (const id of Object.keys(template[section] ?? {})) {
      if (!/^[A-Za-z0-9]+$/.test(id)) findings.push(finding(section, id, 'logical id not alphanumeric', id))
      if (id.length > LIMITS.logicalIdChars) findings.push(finding(section, id, 'logical id over 255 characters', id))
    }
  return findings
}
