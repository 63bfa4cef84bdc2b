// How big the fault and fuzz cases run. `npm test` runs every case shortened (seconds each); the fault suite
// (`npm run test:faults`, vitest.faults.config.mts) runs them at full size. FULL=1 or FAULTS_SCALE=full forces
// full size anywhere; FAULTS_SCALE=short forces the short one.
export const FULL =
  process.env.FAULTS_SCALE === 'full' || (process.env.FAULTS_SCALE !== 'short' && process.env.FULL === '1')

/** `short` under `npm test`, `full` in the fault suite. */
export const pick = <T>(short: T, full: T): T => (FULL ? full : short)
