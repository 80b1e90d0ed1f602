/**
 * The false-completion check: a command (the tests, a build) run before a `final`
 * reply is accepted. A failure is evidence fed back to the model, never a crash.
 */
import { Context, Effect, Layer } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { runShell } from "../tools/shell.js"
import { scrubEnv } from "../tools/tool-env.js"

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
  /**
   * Runs the command with `bash -c` in `cwd`, in its own process group (killed whole at the
   * timeout or on interruption), with the tools' scrubbed environment (`tools.envDeny`,
   * `tools.envAllow`, and `secretEnvNames` always removed) and output capped like a tool's.
   */
  static readonly layerShell = (cwd: string = process.cwd(), options: { readonly secretEnvNames?: ReadonlyArray<string> } = {}) =>
    Layer.effect(
      CompletionCheck,
      Effect.gen(function* () {
        const config = yield* Effect.serviceOption(ConfigService)
        const tools = config._tag === "Some" ? config.value.tools : undefined
        const env = scrubEnv(process.env, {
          secretNames: options.secretEnvNames ?? [],
          ...(tools !== undefined ? { deny: tools.envDeny, allow: tools.envAllow, pass: tools.envPass } : {})
        })
        const maxOutputChars = tools?.maxOutputChars
        return CompletionCheck.of({
          run: (command, timeoutMs) =>
            Effect.promise((signal) =>
              runShell(command, { cwd, timeoutMs, signal, env, ...(maxOutputChars !== undefined ? { maxOutputChars } : {}) })
            ).pipe(
              Effect.map((r) => ({
                ok: r.exitCode === 0,
                exitCode: r.exitCode,
                output: r.failure !== undefined ? `${r.output}\n(${r.failure})` : r.output
              }))
            )
        })
      })
    )

  /** A check that answers with `run` instead of a shell (tests, a runtime's own runner): `Layer.succeed(CompletionCheck, CompletionCheck.make(run))`. */
  static readonly make = (run: (command: string) => CheckResult) => CompletionCheck.of({ run: (command) => Effect.sync(() => run(command)) })

  /** @deprecated Use `Layer.succeed(CompletionCheck, CompletionCheck.make(run))`; this alias goes in the next release. */
  static readonly layerFrom = (run: (command: string) => CheckResult) => Layer.succeed(CompletionCheck, CompletionCheck.make(run))
}
