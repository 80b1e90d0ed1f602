/**
 * `loopguard audit FILE... [--json]`: replay recorded traces through the real RunLoop in shadow
 * mode and report every incident. A file that cannot be read or parsed is reported as failed
 * (naming file:line) and the others are still audited; any failed file makes the exit status 1.
 * `-` is a trace on stdin (named `stdin` in the output).
 */
import { auditConfig, auditFile, type AuditResult } from "@loopguard/effect/audit"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { RunFailed } from "../errors.js"
import { loadCliConfig } from "../session.js"
import { humanBlock, overallSummary, toJsonLine } from "../audit/format.js"
import { spoolStdin, STDIN_ARG } from "../audit/stdin-trace.js"

export const auditCommand = Command.make(
  "audit",
  {
    files: Argument.String("file").pipe(Argument.variadic({ min: 1 }), Argument.withDescription("trace files (trace format v1, JSON Lines); - reads one from stdin")),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("print one JSON object per file per line")),
    config: Flag.String("config").pipe(Flag.optional, Flag.withDescription("config file (thresholds, tool-name lists); every detector is switched on regardless"))
  },
  (flags) =>
    Effect.gen(function* () {
      const base = yield* loadCliConfig(Option.isSome(flags.config) ? { configPath: flags.config.value } : {})
      const config = auditConfig(base)
      const results: Array<AuditResult> = []
      for (const file of flags.files) {
        const r = file === STDIN_ARG ? yield* Effect.scoped(Effect.flatMap(spoolStdin, (source) => auditFile(source, config))) : yield* auditFile(file, config)
        results.push(r)
        // Print as each file finishes, so a long batch shows progress.
        if (flags.json) {
          yield* Console.log(toJsonLine(r))
          // The JSON object's keys are a contract; notes (a line cut at input.maxLineBytes, an orphan result) go beside it.
          if (r._tag === "audited") for (const n of r.notes) yield* Console.error(`note: ${n}`)
        }
        else yield* Console.log(humanBlock(r).join("\n"))
      }
      if (!flags.json) yield* Console.log(overallSummary(results))
      const failed = results.filter((r) => r._tag === "failed").length
      if (failed > 0) return yield* new RunFailed({ message: `audit: ${failed} of ${results.length} files failed`, exitCode: 1 })
    })
).pipe(Command.withDescription("Replay recorded traces through the RunLoop in shadow mode and report every incident"))
