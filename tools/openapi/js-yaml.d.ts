// The two functions of js-yaml 4 used here (it ships no types; @types/js-yaml is not a dependency).
declare module 'js-yaml' {
  export function load(text: string): unknown
  export function dump(value: unknown, options?: { lineWidth?: number; noRefs?: boolean }): string
  const yaml: { load: typeof load; dump: typeof dump }
  export default yaml
}
