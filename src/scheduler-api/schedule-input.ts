// CreateSchedule / UpdateSchedule input as the SDK sends it (restJson1 body; dates are epoch seconds), checked as
// EventBridge Scheduler checks it, into the definition we keep. A bad field is a ValidationException naming it.
import { SchedulerValidationError } from './errors'
import { checkTimezone } from './at-expression'
import { readExpression } from './expression'

export const NAME_PATTERN = /^[0-9a-zA-Z_.-]{1,64}$/

/** AWS's bound on Target.Input: "The maximum size of the Input field is 256 KB" (the API reference). */
const MAX_INPUT_BYTES = 262_144

export interface TargetDefinition {
  Arn: string
  RoleArn: string
  Input?: string
  SqsParameters?: { MessageGroupId?: string }
  RetryPolicy?: { MaximumEventAgeInSeconds?: number; MaximumRetryAttempts?: number }
  DeadLetterConfig?: { Arn?: string }
}

export interface ScheduleDefinition {
  Name: string
  GroupName: string
  ScheduleExpression: string
  ScheduleExpressionTimezone?: string
  /** Epoch seconds, as the wire carries them. */
  StartDate?: number
  EndDate?: number
  Description?: string
  State: 'ENABLED' | 'DISABLED'
  FlexibleTimeWindow: { Mode: 'OFF' | 'FLEXIBLE'; MaximumWindowInMinutes?: number }
  Target: TargetDefinition
  ActionAfterCompletion: 'NONE' | 'DELETE'
  ClientToken?: string
  CreationDate: number
  LastModificationDate: number
}

type Body = Record<string, unknown>

const fail = (message: string): never => {
  throw new SchedulerValidationError(message)
}

/** `label`: the field's name in a message (its path, for a field of Target). */
function optionalString(body: Body, field: string, max: number, label = field): string | undefined {
  const v = body[field]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || v.length < 1 || v.length > max) fail(`${label} must be a string of 1-${max} characters.`)
  return v as string
}

function oneOf<T extends string>(v: unknown, field: string, values: readonly T[], fallback?: T): T {
  if (v === undefined && fallback) return fallback
  if (typeof v !== 'string' || !values.includes(v as T)) fail(`${field} must be one of ${values.join(', ')}.`)
  return v as T
}

export function checkName(name: string, field = 'Name'): string {
  if (!NAME_PATTERN.test(name)) fail(`${field} must be 1-64 characters of [0-9a-zA-Z-_.].`)
  return name
}

function flexibleWindow(v: unknown): ScheduleDefinition['FlexibleTimeWindow'] {
  if (!v || typeof v !== 'object') return fail('FlexibleTimeWindow is required.')
  const w = v as Body
  const Mode = oneOf(w.Mode, 'FlexibleTimeWindow.Mode', ['OFF', 'FLEXIBLE'] as const)
  if (Mode === 'OFF') {
    if (w.MaximumWindowInMinutes !== undefined)
      fail('FlexibleTimeWindow.MaximumWindowInMinutes is only allowed with Mode FLEXIBLE.')
    return { Mode }
  }
  const minutes = w.MaximumWindowInMinutes
  if (!Number.isInteger(minutes) || (minutes as number) < 1 || (minutes as number) > 1440) {
    fail('FlexibleTimeWindow.MaximumWindowInMinutes must be an integer from 1 to 1440 with Mode FLEXIBLE.')
  }
  return { Mode, MaximumWindowInMinutes: minutes as number }
}

function target(v: unknown): TargetDefinition {
  if (!v || typeof v !== 'object') return fail('Target is required.')
  const t = v as Body
  const Arn = optionalString(t, 'Arn', 1600, 'Target.Arn') ?? fail('Target.Arn is required.')
  const RoleArn = optionalString(t, 'RoleArn', 1600, 'Target.RoleArn') ?? fail('Target.RoleArn is required.')
  const Input = optionalString(t, 'Input', MAX_INPUT_BYTES, 'Target.Input')
  if (Input !== undefined && Buffer.byteLength(Input) > MAX_INPUT_BYTES) {
    fail(`Target.Input must be at most ${MAX_INPUT_BYTES} bytes (256 KB).`)
  }
  const out: TargetDefinition = { Arn, RoleArn }
  if (Input !== undefined) out.Input = Input
  for (const field of ['SqsParameters', 'RetryPolicy', 'DeadLetterConfig'] as const) {
    if (t[field] !== undefined && t[field] !== null) {
      if (typeof t[field] !== 'object') fail(`Target.${field} must be an object.`)
      ;(out as unknown as Body)[field] = t[field]
    }
  }
  const unsupported = Object.keys(t).filter((k) => k.endsWith('Parameters') && k !== 'SqsParameters')
  if (unsupported.length) fail(`Target.${unsupported[0]} is not supported here: targets are SQS queues.`)
  return out
}

function epochSeconds(body: Body, field: string): number | undefined {
  const v = body[field]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${field} must be a timestamp.`)
  return v as number
}

/** The definition a CreateSchedule / UpdateSchedule body asks for (dates filled in by the caller). */
export function readScheduleInput(name: string, body: Body, nowS: number): ScheduleDefinition {
  checkName(name)
  if (body.KmsKeyArn !== undefined) {
    fail(
      "KmsKeyArn is not supported: schedules are stored in the queue's Redis, encrypted at rest as it is configured.",
    )
  }
  const GroupName = checkName(typeof body.GroupName === 'string' ? body.GroupName : 'default', 'GroupName')
  const ScheduleExpression = optionalString(body, 'ScheduleExpression', 256) ?? fail('ScheduleExpression is required.')
  const zone = optionalString(body, 'ScheduleExpressionTimezone', 50)
  if (zone) checkTimezone(zone)
  readExpression(ScheduleExpression, zone)
  const definition: ScheduleDefinition = {
    Name: name,
    GroupName,
    ScheduleExpression,
    State: oneOf(body.State, 'State', ['ENABLED', 'DISABLED'] as const, 'ENABLED'),
    FlexibleTimeWindow: flexibleWindow(body.FlexibleTimeWindow),
    Target: target(body.Target),
    ActionAfterCompletion: oneOf(
      body.ActionAfterCompletion,
      'ActionAfterCompletion',
      ['NONE', 'DELETE'] as const,
      'NONE',
    ),
    CreationDate: nowS,
    LastModificationDate: nowS,
  }
  if (zone) definition.ScheduleExpressionTimezone = zone
  const start = epochSeconds(body, 'StartDate')
  const end = epochSeconds(body, 'EndDate')
  if (start !== undefined) definition.StartDate = start
  if (end !== undefined) definition.EndDate = end
  if (start !== undefined && end !== undefined && end <= start) fail('EndDate must be after StartDate.')
  // 0-512 characters on AWS: an empty Description is one.
  const description = body.Description === '' ? '' : optionalString(body, 'Description', 512)
  if (description !== undefined) definition.Description = description
  const token = optionalString(body, 'ClientToken', 64)
  if (token !== undefined) definition.ClientToken = token
  return definition
}
