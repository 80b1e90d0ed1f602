/**
 * One way to run a shell command for the built-in `bash` tool and the completion check:
 * `bash -c` in a directory, in a process group of its own, stdout and stderr interleaved and
 * capped while they stream. At the timeout, on abort, and as soon as the command itself exits,
 * the whole group is killed, so background jobs and grandchildren never outlive the call.
 * A process that left the group (`setsid cmd &`, a daemon) is the user's: it is not killed, and
 * the call does not wait for the output pipes it may hold open (PIPE_GRACE_MS after the exit).
 * This is not a sandbox: the command runs with the user's rights.
 */
import { spawn } from "node:child_process"
import { MAX_TIMER_MS } from "../config/schema.js"
import { makeCappedOutput } from "./capped-output.js"
import { releaseGroup, trackGroup } from "./process-groups.js"

export interface ShellOutcome {
  /** Null when the process was killed or never started. */
  readonly exitCode: number | null
  readonly output: string
  /** Why it did not finish on its own: a timeout, the abort signal, or a spawn error. */
  readonly failure?: string
}

/** Options of `runShell`. */
export interface ShellOptions {
  readonly cwd: string
  readonly timeoutMs: number
  readonly signal?: AbortSignal
  /** The command's whole environment (scrub it first: see tool-env.ts). Default: this process's. */
  readonly env?: Readonly<Record<string, string>>
  /** Characters of output kept (head and tail); default 20 000. */
  readonly maxOutputChars?: number
  /** Applied to the output before it is cut to head and tail (a key at the cut is then still whole). */
  readonly redact?: (text: string) => string
}

export const DEFAULT_MAX_OUTPUT_CHARS = 20_000
/** How long output may still arrive after the command exited before its pipes are closed. */
export const PIPE_GRACE_MS = 500

/** Runs a shell command in `cwd` with a timeout and abort signal; the child never outlives it. */
export const runShell = (command: string, options: ShellOptions): Promise<ShellOutcome> =>
  new Promise((done) => {
    const output = makeCappedOutput(options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS, options.redact)
    if (options.signal?.aborted === true) return done({ exitCode: null, output: "", failure: "cancelled before it started" })
    let stopped: string | undefined
    const child = spawn("bash", ["-c", command], {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      ...(options.env !== undefined ? { env: options.env } : {})
    })
    const pgid = child.pid
    const stop = (why: string) => {
      stopped ??= why
      if (pgid !== undefined) releaseGroup(pgid)
    }
    if (pgid !== undefined) trackGroup(pgid, (why) => (stopped ??= why))
    // Above 2^31−1 ms a timer fires after 1 ms: a library caller's huge timeout means "no hurry".
    const timer = setTimeout(() => stop(`timed out after ${options.timeoutMs} ms`), Math.min(options.timeoutMs, MAX_TIMER_MS))
    const onAbort = () => stop("cancelled")
    options.signal?.addEventListener("abort", onAbort, { once: true })
    let finished = false
    const finish = (outcome: ShellOutcome) => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      options.signal?.removeEventListener("abort", onAbort)
      if (pgid !== undefined) releaseGroup(pgid)
      done(outcome)
    }
    child.stdout.setEncoding("utf8").on("data", output.push)
    child.stderr.setEncoding("utf8").on("data", output.push)
    // The leader is done: whatever it left in its group (`cmd &`) goes too, which also closes
    // the pipes such jobs hold open.
    const settle = (code: number | null, sig: NodeJS.Signals | null) => {
      if (stopped !== undefined) return finish({ exitCode: null, output: output.text(), failure: stopped })
      if (sig === null) return finish({ exitCode: code, output: output.text() })
      finish({ exitCode: null, output: output.text(), failure: `killed by ${sig}` })
    }
    child.on("exit", (code, sig) => {
      if (pgid !== undefined) releaseGroup(pgid)
      // Only a process outside the group can still hold the pipes now: the call does not wait for it.
      setTimeout(() => {
        if (finished) return
        child.stdout.destroy()
        child.stderr.destroy()
        settle(code, sig)
      }, PIPE_GRACE_MS).unref?.()
    })
    child.on("error", (e) => finish({ exitCode: null, output: output.text(), failure: e.message }))
    child.on("close", settle)
  })
