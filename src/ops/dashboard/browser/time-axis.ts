// The lateness chart's time axis: UTC clock times (the page shows every other time in UTC), wide enough apart that
// labels never overlap.

/** Least room per tick label, in CSS pixels: an "HH:MM:SS" label is ~55 px wide in the page's font. */
export const TICK_SPACE_PX = 80

/** Tick labels for axis splits in epoch seconds: "HH:MM" on whole minutes, else "HH:MM:SS", in UTC. */
export function utcTicks(splits: readonly number[]): string[] {
  const wholeMinutes = splits.every((s) => s % 60 === 0)
  return splits.map((s) => new Date(s * 1000).toISOString().slice(11, wholeMinutes ? 16 : 19))
}
