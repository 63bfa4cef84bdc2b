// What goes back on the wire: ARNs in EventBridge Scheduler's form, and the output shapes of the SDK's operations
// (restJson1: JSON bodies, timestamps as epoch seconds).
import type { GroupDefinition } from './groups'
import type { ScheduleDefinition } from './schedule-input'

/** The partition, region and account ARNs are built for (region from the request's signature). */
export interface ArnScope {
  region: string
  account: string
}

export const scheduleArn = (s: ArnScope, group: string, name: string) =>
  `arn:aws:scheduler:${s.region}:${s.account}:schedule/${group}/${name}`

export const groupArn = (s: ArnScope, group: string) =>
  `arn:aws:scheduler:${s.region}:${s.account}:schedule-group/${group}`

/** The group a schedule-group ARN names (TagResource and friends), or null. */
export function groupOfArn(arn: string): string | null {
  const m = /^arn:aws[a-z-]*:scheduler:[a-z0-9-]+:\d{12}:schedule-group\/([0-9a-zA-Z_.-]{1,64})$/.exec(arn)
  return m ? m[1]! : null
}

/** GetScheduleOutput. */
export function scheduleOutput(s: ArnScope, d: ScheduleDefinition): Record<string, unknown> {
  const { ClientToken: _token, ...fields } = d
  return { Arn: scheduleArn(s, d.GroupName, d.Name), ...fields }
}

/** ScheduleSummary, an item of ListSchedulesOutput. */
export function scheduleSummary(s: ArnScope, d: ScheduleDefinition): Record<string, unknown> {
  return {
    Arn: scheduleArn(s, d.GroupName, d.Name),
    Name: d.Name,
    GroupName: d.GroupName,
    State: d.State,
    CreationDate: d.CreationDate,
    LastModificationDate: d.LastModificationDate,
    Target: { Arn: d.Target.Arn },
  }
}

/** GetScheduleGroupOutput and ScheduleGroupSummary. */
export function groupOutput(s: ArnScope, g: GroupDefinition): Record<string, unknown> {
  return {
    Arn: groupArn(s, g.Name),
    Name: g.Name,
    State: g.State,
    CreationDate: g.CreationDate,
    LastModificationDate: g.LastModificationDate,
  }
}
