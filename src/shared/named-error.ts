// The base of the errors a caller tells apart by class: the class's own name as `name` (stack traces and logs show
// ValidationError, not Error).
export abstract class NamedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}
