// Lua scripts are imported as text: esbuild's `loader: { '.lua': 'text' }` in bundles, a tiny plugin in vitest.
declare module '*.lua' {
  const source: string
  export default source
}
