// The esbuild settings of our code as Lambda runs it: one CommonJS file for Node 24, Lua files inlined as text,
// node_modules left external (the function's package carries them). Shared by scripts/run-ts.mjs and the benches that
// bundle a function themselves. Plain ESM without top-level await, so a bundled bench can import it too.
export const lambdaBundle = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  packages: 'external',
  loader: { '.lua': 'text' },
}
