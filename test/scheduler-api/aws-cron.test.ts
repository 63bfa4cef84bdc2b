// EventBridge Scheduler's cron() and rate() read into our recurring schedules' cron and everyMs (pure translation).
import { describe, expect, it } from 'vitest'
import { ValidationException } from '@aws-sdk/client-scheduler'
import { cronPattern, rateEveryMs } from '../../src/scheduler-api/aws-cron'
import { SchedulerValidationError } from '../../src/scheduler-api/errors'

describe('AWS cron() and rate() expressions', () => {
  it('turns the six AWS fields into five, with day-of-week numbers moved from 1-7 to 0-6', () => {
    expect(cronPattern('cron(0 9 ? * MON-FRI *)')).toBe('0 9 * * MON-FRI')
    expect(cronPattern('cron(0 12 ? * 2-6 *)')).toBe('0 12 * * 1-5')
    expect(cronPattern('cron(15 10 ? * 6L *)')).toBe('15 10 * * 5L')
    expect(cronPattern('cron(0 8 ? * 6#3 *)')).toBe('0 8 * * 5#3')
    expect(cronPattern('cron(0/15 * 1,15 * ? *)')).toBe('0/15 * 1,15 * *')
    expect(cronPattern('cron(0 0 L * ? *)')).toBe('0 0 L * *')
    expect(cronPattern('cron(0 0 ? * 1,7 *)')).toBe('0 0 * * 0,6')
  })

  it('refuses what has no equal here, naming the reason', () => {
    const refused = (e: string) => {
      try {
        cronPattern(e)
      } catch (error) {
        expect(error).toBeInstanceOf(SchedulerValidationError)
        return (error as Error).message
      }
      throw new Error(`${e} was accepted`)
    }
    expect(refused('cron(0 9 ? * MON-FRI 2027)')).toMatch(/year/)
    expect(refused('cron(0 9 15W * ? *)')).toMatch(/W/)
    expect(refused('cron(0 9 * * MON *)')).toMatch(/exactly one/)
    expect(refused('cron(0 9 * *)')).toMatch(/cron\(minutes hours/)
    expect(refused('cron(0 9 ? * 8 *)')).toMatch(/1 \(Sunday\) to 7/)
  })

  it('reads rate() in minutes, hours and days', () => {
    expect(rateEveryMs('rate(1 minute)')).toBe(60_000)
    expect(rateEveryMs('rate(5 minutes)')).toBe(300_000)
    expect(rateEveryMs('rate(2 hours)')).toBe(7_200_000)
    expect(rateEveryMs('rate(1 day)')).toBe(86_400_000)
    expect(() => rateEveryMs('rate(0 minutes)')).toThrow(/positive/)
    expect(() => rateEveryMs('rate(5 seconds)')).toThrow(/unit/)
    // The wire type the SDK raises for these is ValidationException (the error's type, not its class here).
    expect(new SchedulerValidationError('x').type).toBe(ValidationException.name)
  })
})
