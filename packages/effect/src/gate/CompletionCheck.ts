/**
 * The false-completion check (SPEC §8): a command (the tests, a build) run before a `final`
 * reply is accepted. A failure is evidence fed back to the model, never a crash.
 */
import { Context, Effect, Layer } from "effect"
import { spawn } from "node:child_process"

export interface CheckResult {
  readonly ok: boolean
  readonly exitCode: number | null
  readonly output: string
}

export class CompletionCheck extends Context.Service<
  CompletionCheck,
  { readonly run: (command: string, timeoutMs: number) => Effect.Effect<CheckResult> }
>()("loopguard/CompletionCheck") {
  /** Runs the command with `bash -c` in `cwd`; killed at the timeout. */
  static readonly layerShell = (cwd: string = process.cwd()) =>
    Layer.succeed(
      CompletionCheck,
      CompletionCheck.of({
        run: (command, timeoutMs) =>
          Effect.callback<CheckResult>((resume, signal) => {
            const child = spawn("bash", ["-c", command], { cwd, signal, stdio: ["ignore", "pipe", "pipe"] })
            let output = ""
            const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
            child.stdout.on("data", (d) => (output += d))
            child.stderr.on("data", (d) => (output += d))
            child.on("error", (e) => {
              clearTimeout(timer)
              resume(Effect.succeed({ ok: false, exitCode: null, output: `${output}\n${e.message}` }))
            })
            child.on("close", (code, sig) => {
              clearTimeout(timer)
              const note = sig !== null ? `\n(killed by ${sig}${sig === "SIGKILL" ? `, timeout ${timeoutMs} ms` : ""})` : ""
              resume(Effect.succeed({ ok: code === 0, exitCode: code, output: output + note }))
            })
          })
      })
    )

  static readonly layerFrom = (run: (command: string) => CheckResult) =>
    Layer.succeed(CompletionCheck, CompletionCheck.of({ run: (command) => Effect.sync(() => run(command)) }))
}
