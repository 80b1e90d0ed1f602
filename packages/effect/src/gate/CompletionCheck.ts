/**
 * The false-completion check (SPEC §8): a command (the tests, a build) run before a `final`
 * reply is accepted. A failure is evidence fed back to the model, never a crash.
 */
import { Context, Effect, Layer } from "effect"
import { runShell } from "../tools/shell.js"

export interface CheckResult {
  readonly ok: boolean
  readonly exitCode: number | null
  readonly output: string
}

/** The completion check: a command that must pass before a final answer is accepted. */
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
          Effect.promise((signal) => runShell(command, { cwd, timeoutMs, signal })).pipe(
            Effect.map((r) => ({
              ok: r.exitCode === 0,
              exitCode: r.exitCode,
              output: r.failure !== undefined ? `${r.output}\n(${r.failure})` : r.output
            }))
          )
      })
    )

  static readonly layerFrom = (run: (command: string) => CheckResult) =>
    Layer.succeed(CompletionCheck, CompletionCheck.of({ run: (command) => Effect.sync(() => run(command)) }))
}
