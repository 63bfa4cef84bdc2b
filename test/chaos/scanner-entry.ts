// The chaos run's scanner process: the fault suite's scanner worker (test/faults/scanner-worker.ts), after the
// optional clock skew (test/chaos/clock-skew.ts, imported first so the engine only ever sees the skewed clock).
import './clock-skew'
import '../faults/scanner-worker'
