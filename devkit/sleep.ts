// The one sleep of the dev folders. A test waits on a signal (test/support/eventually.ts, a promise the code under
// test settles), never on a sleep: what sleeps is pacing on purpose (a load generator's gap, a nemesis' fault
// timing, a poll between looks in a wait helper).
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)))
