/**
 * Child processes of the agent tests: each runs in a process group of its own, so the agent and
 * everything it spawned (its shell tool, its language servers) is killed together, by the group's
 * id, when the run ends, times out or the test fails.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"

const liveGroups = new Set<number>()

const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, signal)
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Kills every group still registered: the last resort of `afterAll` and of this process's exit. */
export const killAllGroups = (): void => {
  for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL")
  liveGroups.clear()
}
process.once("exit", killAllGroups)

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()))

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** SIGTERM to the group, then SIGKILL after `graceMs`; resolves once the leader is gone. */
export const stopGroup = async (child: ChildProcess, graceMs = 3000): Promise<void> => {
  const pgid = child.pid
  if (pgid === undefined) return
  signalGroup(pgid, "SIGTERM")
  await Promise.race([exited(child), pause(graceMs)])
  // Children of the group may outlive a leader that obeyed SIGTERM: the whole group goes.
  signalGroup(pgid, "SIGKILL")
  await exited(child)
  liveGroups.delete(pgid)
}

export interface StartedGroup {
  readonly child: ChildProcess
  /** Everything the process wrote so far (each stream capped at 1 MB). */
  readonly output: () => { readonly stdout: string; readonly stderr: string }
}

const OUTPUT_CAP = 1_000_000

/** Starts `command` as the leader of a new process group, its output captured. */
export const startGroup = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Record<string, string> }
): StartedGroup => {
  // Bun throws a failed exec (ENOEXEC, EACCES) synchronously: it comes back as the run's output.
  const child = (() => {
    try {
      return spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    } catch (cause) {
      return spawn(process.execPath, ["-e", `console.error(${JSON.stringify(`spawn ${command} failed: ${String(cause)}`)}); process.exit(127)`], {
        cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"]
      })
    }
  })()
  if (child.pid !== undefined) liveGroups.add(child.pid)
  const out = { stdout: "", stderr: "" }
  const collect = (key: "stdout" | "stderr") => (part: Buffer) => {
    if (out[key].length < OUTPUT_CAP) out[key] += part.toString("utf8")
  }
  child.stdout?.on("data", collect("stdout"))
  child.stderr?.on("data", collect("stderr"))
  child.once("error", (cause) => (out.stderr += `\nspawn failed: ${cause.message}`))
  child.once("exit", () => {
    // The leader is gone; its group may not be (a detached grandchild). Kill what is left now.
    if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL")
    if (child.pid !== undefined) liveGroups.delete(child.pid)
  })
  return { child, output: () => ({ ...out }) }
}

export interface RunOutcome {
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  /** The run hit its deadline (or `stopWhen`) and was killed by us. */
  readonly killed: boolean
  readonly elapsedMs: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a process to its end, killing its group at `deadlineMs` or as soon as `stopWhen` holds
 * (polled every 200 ms). The group is always gone when this resolves.
 */
export const runBounded = async (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly deadlineMs: number; readonly stopWhen?: () => boolean }
): Promise<RunOutcome> => {
  const started = Date.now()
  const group = startGroup(command, args, options)
  let killed = false
  const done = exited(group.child)
  try {
    while (Date.now() - started < options.deadlineMs) {
      const finished = await Promise.race([done.then(() => true), pause(200).then(() => false)])
      if (finished) break
      if (options.stopWhen?.() === true) break
    }
  } finally {
    if (group.child.exitCode === null && group.child.signalCode === null) killed = true
    await stopGroup(group.child)
  }
  const { stdout, stderr } = group.output()
  return { exitCode: group.child.exitCode, signal: group.child.signalCode, killed, elapsedMs: Date.now() - started, stdout, stderr }
}

/** Whether process `pid` works in `dir` or has it in its environment (HOME, TMPDIR…). Linux's /proc. */
const livesUnder = (pid: number, dir: string): boolean => {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`)
    if (cwd === dir || cwd.startsWith(`${dir}/`)) return true
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").some((entry) => entry.endsWith(`=${dir}`) || entry.includes(`=${dir}/`))
  } catch {
    // Gone, a zombie, or not ours to read.
    return false
  }
}

/** Processes other than this one that live under `dir` (none where there is no /proc). */
const processesUnder = (dir: string): Array<number> => {
  let pids: Array<string>
  try {
    pids = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))
  } catch {
    return []
  }
  return pids.map(Number).filter((pid) => pid !== process.pid && livesUnder(pid, dir))
}

/**
 * What is still running under any of `dirs` (the folders of one test's runs), as `pid args`, once
 * it had up to 10 s to end. Scoped to the test's own folders, not to the agent's install folder,
 * which every suite on the machine shares.
 */
export const leftoversUnder = async (dirs: ReadonlyArray<string>): Promise<Array<string>> => {
  const left = () => dirs.flatMap(processesUnder)
  for (let i = 0; i < 100 && left().length > 0; i++) await pause(100)
  return left().map((pid) => {
    try {
      return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim()}`
    } catch {
      return String(pid)
    }
  })
}

/**
 * Kills, by pid, what a run left under its own folder (`dir`, made for that run alone), and waits
 * up to 5 s until it is gone. An agent may start a process in a session of its own (setsid), out
 * of the group `stopGroup` kills, which can outlive the agent's exit on a loaded machine.
 */
export const killProcessesUnder = async (dir: string): Promise<void> => {
  for (let i = 0; i < 50; i++) {
    const left = processesUnder(dir)
    if (left.length === 0) return
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // Already gone.
      }
    }
    await pause(100)
  }
}
