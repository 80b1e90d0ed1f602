/**
 * Every process group loopguard starts (tool commands, the completion check) is recorded here
 * until it is gone. Killing the group, not only its leader, takes `cmd &` and grandchildren with
 * it; a last-chance `exit` handler kills whatever is still recorded, so no child outlives the
 * loopguard process even when it leaves without cleaning up.
 */
const live = new Set<number>()
let exitHookInstalled = false

const installExitHook = (): void => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on("exit", killAllGroups)
}

/** SIGKILL to the whole group; a group that is already gone is not an error. */
export const killGroup = (pgid: number): void => {
  try {
    process.kill(-pgid, "SIGKILL")
  } catch {
    // ESRCH: nothing left in the group.
  }
}

export const trackGroup = (pgid: number): void => {
  installExitHook()
  live.add(pgid)
}

export const releaseGroup = (pgid: number): void => {
  killGroup(pgid)
  live.delete(pgid)
}

export const killAllGroups = (): void => {
  for (const pgid of live) killGroup(pgid)
  live.clear()
}

/** Groups started and not yet released (for tests and diagnostics). */
export const liveGroups = (): ReadonlyArray<number> => [...live]
