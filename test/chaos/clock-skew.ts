// Imported first by the chaos scanner entry: shifts this process's clock by CLOCK_SKEW_MS (Date.now and new Date()),
// as a Lambda host with a wrong clock would have. The design takes "now" from Redis (TIME inside the scripts), so a
// skewed scanner must make no job early and lose none.
const skew = Number(process.env.CLOCK_SKEW_MS ?? 0)
if (skew) {
  const RealDate = Date
  class SkewedDate extends RealDate {
    constructor(...args: any[]) {
      if (args.length === 0) super(RealDate.now() + skew)
      else super(...(args as [number]))
    }
    static override now() {
      return RealDate.now() + skew
    }
  }
  globalThis.Date = SkewedDate as DateConstructor
}
export {}
