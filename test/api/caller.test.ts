// Who a deep page of GET /jobs is counted for (src/api/caller.ts): a role's sessions share one count, whatever their
// session names, so a caller cannot get a fresh allowance by renaming its session.
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { callerOf } from '../../src/api/caller'

/** An API event as API Gateway hands it, authorized for `userArn` (or not authorized), from `sourceIp`. */
const eventOf = (userArn: string | undefined, sourceIp = '203.0.113.7') =>
  ({
    requestContext: { http: { sourceIp }, ...(userArn ? { authorizer: { iam: { userArn } } } : {}) },
  }) as unknown as APIGatewayProxyEventV2

describe('the caller of a deep page', () => {
  it('is the role for every session of an assumed role, whatever the session is named', () => {
    // prepare: two sessions of one role, and a session of another role
    const a = eventOf('arn:aws:sts::123456789012:assumed-role/ops-reader/alice-1')
    const b = eventOf('arn:aws:sts::123456789012:assumed-role/ops-reader/renamed/with/slashes@x')
    const other = eventOf('arn:aws:sts::123456789012:assumed-role/ops-writer/alice-1')
    // act / assess
    expect(callerOf(a)).toBe('iam:arn:aws:sts::123456789012:assumed-role/ops-reader')
    expect(callerOf(b)).toBe(callerOf(a))
    expect(callerOf(other)).not.toBe(callerOf(a))
  })

  it('is the role in other partitions too, an IAM user as it is, and the source address without authorization', () => {
    // act / assess
    expect(callerOf(eventOf('arn:aws-cn:sts::123456789012:assumed-role/ops-reader/s'))).toBe(
      'iam:arn:aws-cn:sts::123456789012:assumed-role/ops-reader',
    )
    expect(callerOf(eventOf('arn:aws:iam::123456789012:user/ops/alice'))).toBe(
      'iam:arn:aws:iam::123456789012:user/ops/alice',
    )
    expect(callerOf(eventOf(undefined))).toBe('ip:203.0.113.7')
  })
})
