// Preloaded into serverless-offline (NODE_OPTIONS=--require): every worker thread it starts (one per cold instance
// of a function) waits SDQ_SLOW_WORKER_START_MS before it loads the handler, as a cold start does on a loaded
// machine. The main thread hands the preload on to each worker through the worker's own env (serverless-offline
// gives a worker only the function's variables, and a worker reads NODE_OPTIONS from its env).
const workerThreads = require('node:worker_threads')

if (workerThreads.isMainThread) {
  const Worker = workerThreads.Worker
  workerThreads.Worker = class SlowStartWorker extends Worker {
    constructor(file, options = {}) {
      super(file, {
        ...options,
        env: {
          ...options.env,
          NODE_OPTIONS: `--require ${__filename}`,
          SDQ_SLOW_WORKER_START_MS: process.env.SDQ_SLOW_WORKER_START_MS,
        },
      })
    }
  }
  // serverless-offline imports Worker as an ES module binding: make it see this one.
  require('node:module').syncBuiltinESMExports()
} else {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.SDQ_SLOW_WORKER_START_MS))
}
