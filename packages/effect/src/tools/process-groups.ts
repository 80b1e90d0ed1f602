/**
 * Every process group loopguard starts (tool commands, the completion check) is recorded here
 * until it is gone. Killing the group, not only its leader, takes `cmd &` and grandchildren with
 * it. Last-chance hooks kill whatever is still recorded when the loopguard process leaves: on
 * `exit`, and on SIGINT / SIGTERM / SIGHUP, after which a signal nobody else handles is raised
 * again so the process still ends the way it would have.
 */
import { readdirSync, readFileSync } from "node:fs"

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

/**
 * The processes of session `sid` (Linux's /proc; none where there is no /proc). A command is
 * started as the leader of a session of its own (`detached`), so its session holds the jobs a
 * `set -m` shell put in groups of their own; only `setsid` takes a process out of it.
 */
export const sessionMembers = (sid: number): ReadonlyArray<number> => {
  let entries: ReadonlyArray<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return []
  }
  const members: Array<number> = []
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      // pid (comm) state ppid pgrp session …: the command name may hold spaces and parentheses.
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]) === sid) members.push(Number(name))
    } catch {
      // Gone while we looked.
    }
  }
  return members
}

const kill = (target: number): void => {
  try {
    process.kill(target, "SIGKILL")
  } catch {
    // ESRCH: already gone.
  }
}

/** SIGKILL to the whole group and to what is left of its session (its `set -m` jobs); one already gone is not an error. */
export const killGroup = (pgid: number): void => {
  kill(-pgid)
  for (const pid of sessionMembers(pgid)) kill(pid)
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
