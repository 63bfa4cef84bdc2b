// The metrics a template's alarms and dashboard read, against the metrics that exist: our own namespace's against
// the EMF lines the code wrote (namespace, metric name, the exact dimension set, and the dimension values the template
// fixes), AWS namespaces' against the metrics and dimension sets of the resource specification database
// (@aws-cdk/aws-service-spec lists each AWS/* metric with its documented dimension sets).
import type { SpecDatabase } from '@aws-cdk/service-spec-types'
import { specDatabase } from './cfn-spec'
import { type Finding, finding, intrinsicName, type Json, type Template } from './cfn-template'

/** One metric a template reads: dimension values are undefined where the template computes them. */
export interface MetricRead {
  namespace: string
  name: string
  dimensions: Record<string, string | undefined>
}

/** One metric the code wrote: a line of CloudWatch Embedded Metric Format, one entry per metric and dimension set. */
export interface MetricWritten {
  namespace: string
  name: string
  dimensions: Record<string, string>
}

/** The metrics in EMF lines (each a parsed JSON object with an `_aws` member). */
export function emittedMetrics(lines: Json[]): MetricWritten[] {
  const out: MetricWritten[] = []
  for (const line of lines)
    for (const directive of line._aws?.CloudWatchMetrics ?? [])
      for (const set of directive.Dimensions ?? [[]])
        for (const metric of directive.Metrics ?? []) {
          const dimensions = Object.fromEntries(set.map((d: string) => [d, String(line[d])]))
          out.push({ namespace: directive.Namespace, name: metric.Name, dimensions })
        }
  return out
}

/** A literal dimension value, or undefined for one CloudFormation computes (Ref, GetAtt, ${...}). */
const literal = (value: Json): string | undefined =>
  typeof value === 'string' && !value.includes('${') && !value.includes('<') ? value : undefined

/** The metric of each alarm (single metric, or each MetricStat of a metric-math alarm). */
export function alarmMetrics(template: Template): [string, MetricRead][] {
  const reads: [string, MetricRead][] = []
  for (const [id, r] of Object.entries<Json>(template.Resources ?? {})) {
    if (r.Type !== 'AWS::CloudWatch::Alarm') continue
    const p = r.Properties
    const stats = p.MetricName
      ? [p]
      : (p.Metrics ?? []).flatMap((m: Json) => (m.MetricStat ? [m.MetricStat.Metric] : []))
    for (const m of stats) {
      const dimensions = Object.fromEntries((m.Dimensions ?? []).map((d: Json) => [d.Name, literal(d.Value)]))
      reads.push([id, { namespace: m.Namespace, name: m.MetricName, dimensions }])
    }
  }
  return reads
}

/** The dashboard bodies' JSON, with ${...} of an Fn::Sub turned into <...> placeholders. */
export function dashboardBodies(template: Template): [string, Json][] {
  const bodies: [string, Json][] = []
  for (const [id, r] of Object.entries<Json>(template.Resources ?? {})) {
    if (r.Type !== 'AWS::CloudWatch::Dashboard') continue
    const body = r.Properties.DashboardBody
    const text = intrinsicName(body) === 'Fn::Sub' ? [body['Fn::Sub']].flat()[0] : body
    if (typeof text !== 'string') continue
    bodies.push([id, JSON.parse(text.replace(/\$\{([^}]*)\}/g, '<$1>'))])
  }
  return bodies
}

/** The metrics of every metric widget: metric arrays (with "." for "as the line above") and SEARCH expressions. */
export function widgetMetrics(body: Json): [string, MetricRead][] {
  const reads: [string, MetricRead][] = []
  for (const [w, widget] of (body.widgets ?? []).entries()) {
    const where = `widgets[${w}] "${widget.properties?.title ?? widget.type}"`
    let previous: Json[] = []
    for (const entry of widget.properties?.metrics ?? []) {
      const parts = entry.filter((p: Json) => typeof p === 'string')
      const options = entry.find((p: Json) => typeof p === 'object') ?? {}
      if (options.expression) {
        for (const search of searches(options.expression)) reads.push([where, search])
        continue
      }
      const full = parts.map((p: string, i: number) => (p === '.' ? previous[i] : p))
      previous = full
      const dimensions: Record<string, string | undefined> = {}
      for (let i = 2; i + 1 < full.length; i += 2) dimensions[full[i]] = literal(full[i + 1])
      reads.push([where, { namespace: full[0], name: full[1], dimensions }])
    }
  }
  return reads
}

/** SEARCH('{Namespace,dim,dim} MetricName="X" dim="v"', ...) in a metric math expression. */
export function searches(expression: string): MetricRead[] {
  const reads: MetricRead[] = []
  for (const m of expression.matchAll(/SEARCH\(\s*'([^']*)'/g)) {
    const schema = m[1]!.match(/\{([^}]*)\}/)
    if (!schema) continue
    const [namespace, ...dims] = schema[1]!.split(',').map((s) => s.trim().replace(/^"|"$/g, ''))
    const terms = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((t) => [t[1]!, t[2]!]))
    const dimensions = Object.fromEntries(dims.map((d) => [d, terms[d]]))
    reads.push({ namespace: namespace!, name: terms.MetricName ?? '', dimensions })
  }
  return reads
}

const sameNames = (a: string[], b: string[]) => a.length === b.length && a.every((n) => b.includes(n))

/** A read of our own namespace matches a written metric: name, exact dimension names, and every fixed value. */
export function isWritten(read: MetricRead, written: MetricWritten[]): boolean {
  return written.some(
    (w) =>
      w.namespace === read.namespace &&
      w.name === read.name &&
      sameNames(Object.keys(w.dimensions), Object.keys(read.dimensions)) &&
      Object.entries(read.dimensions).every(([k, v]) => v === undefined || w.dimensions[k] === v),
  )
}

/**
 * AWS metrics the specification database does not list yet, with their documented dimension sets: Lambda's Function
 * URL metrics (https://docs.aws.amazon.com/lambda/latest/dg/urls-monitoring.html: by FunctionName, and by
 * FunctionName and Resource for an alias).
 */
const NOT_IN_SPEC: Record<string, Record<string, string[][]>> = {
  'AWS/Lambda': Object.fromEntries(
    ['UrlRequestCount', 'Url4xxCount', 'Url5xxCount', 'UrlRequestLatency'].map((name) => [
      name,
      [['FunctionName'], ['FunctionName', 'Resource']],
    ]),
  ),
}

/** A read of an AWS namespace names a metric the specification lists, with one of its documented dimension sets. */
export function isDocumented(read: MetricRead, db: SpecDatabase = specDatabase()): boolean {
  const extra = NOT_IN_SPEC[read.namespace]?.[read.name]
  if (extra) return extra.some((set) => sameNames(set, Object.keys(read.dimensions)))
  const metrics = db.lookup('metric', 'name', 'equals', read.name).filter((m) => m.namespace === read.namespace)
  return metrics.some((m) =>
    db.follow('usesDimensionSet', m).some((set) =>
      sameNames(
        set.entity.dimensions.map((d) => d.name),
        Object.keys(read.dimensions),
      ),
    ),
  )
}

/** Every alarm's and dashboard widget's metric exists: written by our code, or documented by AWS. */
export function checkMetrics(template: Template, written: MetricWritten[], db = specDatabase()): Finding[] {
  const reads = [
    ...alarmMetrics(template).map(([id, read]): [string, string, MetricRead] => [id, 'Properties', read]),
    ...dashboardBodies(template).flatMap(([id, body]) =>
      widgetMetrics(body).map(([where, read]): [string, string, MetricRead] => [id, where, read]),
    ),
  ]
  const findings: Finding[] = []
  for (const [owner, path, read] of reads) {
    const what = `${read.namespace} ${read.name} {${Object.keys(read.dimensions).join(',')}}`
    if (read.namespace?.startsWith('AWS/')) {
      if (!isDocumented(read, db))
        findings.push(finding(owner, path, 'AWS metric or dimension set not documented', what))
    } else if (!isWritten(read, written)) {
      findings.push(finding(owner, path, 'metric nobody publishes', `${what} ${JSON.stringify(read.dimensions)}`))
    }
  }
  return findings
}
