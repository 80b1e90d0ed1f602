/**
 * Every process group loopguard starts (tool commands, the completion check) is recorded here
 * until it is gone. Killing the group, not only its leader, takes `cmd &` and grandchildren with
 * it. Last-chance hooks kill whatever is still recorded when the loopguard process leaves: on
 * `exit`, and on SIGINT / SIGTERM / SIGHUP, after which a signal nobody else handles is raised
 * again so the process still ends the way it would have.
 */
/** Each live group with what to do when it is killed from outside its call (say why to its caller). */
const live = new Map<number, (why: string) => void>()
let hooksInstalled = false

const LAST_CHANCE_SIGNALS: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP"]

const onSignal = (signal: NodeJS.Signals): void => {
  killAllGroups(`loopguard received ${signal}`)
  // Alone: the default action (end the process) must still happen. With other listeners (the
  // CLI's cancel-with-report), they decide.
  if (process.listenerCount(signal) === 1) {
    process.removeListener(signal, onSignal)
    process.kill(process.pid, signal)
  }
}

const installHooks = (): void => {
  if (hooksInstalled) return
  hooksInstalled = true
  process.on("exit", () => killAllGroups("loopguard is exiting"))
  for (const signal of LAST_CHANCE_SIGNALS) process.on(signal, onSignal)
}

/** SIGKILL to the whole group; a group that is already gone is not an error. */
export const killGroup = (pgid: number): void => {
  try {
    process.kill(-pgid, "SIGKILL")
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** Records a group; `onKilled` is told why when a hook kills it before its call ends. */
export const trackGroup = (pgid: number, onKilled: (why: string) => void = () => {}): void => {
  installHooks()
  live.set(pgid, onKilled)
}

/** Kills the group (leftovers included) and forgets it. */
export const releaseGroup = (pgid: number): void => {
  killGroup(pgid)
  live.delete(pgid)
}

/** Kills every tool process group still alive (process exit, signals), telling each call why. */
export const killAllGroups = (why = "loopguard is stopping its tools"): void => {
  for (const [pgid, onKilled] of [...live]) {
    onKilled(why)
    killGroup(pgid)
  }
  live.clear()
}

/** Groups started and not yet released (for tests and diagnostics). */
export const liveGroups = (): ReadonlyArray<number> => [...live.keys()]
