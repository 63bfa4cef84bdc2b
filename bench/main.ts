// How each bench script ends: exit 0 when it is done, or print the error and exit 1. Exiting explicitly ends the
// run even if a client left a socket open, so a bench never hangs after printing its table.
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e)
      process.exit(1)
    },
  )
}
