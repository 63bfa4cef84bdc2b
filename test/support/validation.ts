// For validation tests: what a validator refused, by field and rule.
import { ValidationError, type ErrorDetail } from '../../src/errors'

/** The details of the ValidationError `validate` throws; fails the test if it throws anything else, or nothing. */
export function refusalOf(validate: () => unknown): ErrorDetail[] {
  try {
    validate()
  } catch (e) {
    if (e instanceof ValidationError) return e.details
    throw e
  }
  throw new Error('expected a ValidationError')
}
