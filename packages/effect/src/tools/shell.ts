/**
 * One way to run a shell command for the built-in `bash` tool and the completion check:
 * `bash -c` in a directory, stdout and stderr interleaved, killed at the timeout or on abort.
 */
import { spawn } from "node:child_process"

export interface ShellOutcome {
  /** Null when the process was killed or never started. */
  readonly exitCode: number | null
  readonly output: string
  /** Why it did not finish on its own: a timeout, the abort signal, or a spawn error. */
  readonly failure?: string
}

/** Runs a shell command in `cwd` with a timeout and abort signal; the child never outlives it. */
export const runShell = (command: string, options: { readonly cwd: string; readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<ShellOutcome> =>
  new Promise((done) => {
    let output = ""
    let timedOut = false
    const child = spawn("bash", ["-c", command], { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], ...(options.signal ? { signal: options.signal } : {}) })
    const timer = setTimeout(() => {
      timedOut = true
      child.kill("SIGKILL")
    }, options.timeoutMs)
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("error", (e) => {
      clearTimeout(timer)
      done({ exitCode: null, output, failure: e.message })
    })
    child.on("close", (code, sig) => {
      clearTimeout(timer)
      if (sig === null) return done({ exitCode: code, output })
      done({ exitCode: null, output, failure: timedOut ? `timed out after ${options.timeoutMs} ms` : `killed by ${sig}` })
    })
  })
