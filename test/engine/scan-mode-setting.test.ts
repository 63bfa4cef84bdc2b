// SCAN_MODE: which mode a DelayQueue in the user's own service runs in when only some of the on-demand settings are
// given, and whether its enqueues then ask for a scan start. Pure: the config alone, no Redis.
import { describe, expect, it } from 'vitest'
import { scanStartOptions } from '../../src/on-demand/start/scan-start'
import { configWith, expectRefused } from '../support/config-setting'

const SCAN_FUNCTION_NAME = 'sdq-prod-scan'

describe('SCAN_MODE', () => {
  it('unset with SCAN_FUNCTION_NAME set reads as on-demand, and enqueues then ask for a scan start', () => {
    // act
    const config = configWith({ SCAN_FUNCTION_NAME })
    // assess: a job due within the horizon while no scanner runs starts the named function
    expect(config.scanMode).toBe('on-demand')
    expect(config.scanFunctionName).toBe(SCAN_FUNCTION_NAME)
    expect(scanStartOptions(config).horizonMs).toBe(config.onDemandHorizonMs)
  })

  it('unset without SCAN_FUNCTION_NAME reads as continuous: nothing could start a scan', () => {
    // act
    const config = configWith()
    // assess
    expect(config.scanMode).toBe('continuous')
    expect(scanStartOptions(config).horizonMs).toBe(0)
  })

  it('set explicitly wins over SCAN_FUNCTION_NAME either way', () => {
    // act
    const continuous = configWith({ SCAN_MODE: 'continuous', SCAN_FUNCTION_NAME })
    const onDemand = configWith({ SCAN_MODE: 'on-demand' })
    // assess
    expect(continuous.scanMode).toBe('continuous')
    expect(scanStartOptions(continuous).horizonMs).toBe(0)
    expect(onDemand.scanMode).toBe('on-demand')
  })

  it('refuses a mode it does not know, naming the setting and the modes', () => {
    expectRefused('SCAN_MODE', [['ondemand', 'must be one of continuous, on-demand']])
  })
})
