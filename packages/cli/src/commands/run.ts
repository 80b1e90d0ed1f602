/**
 * `loopguard run`: one user turn through the full loop against any OpenAI-compatible endpoint,
 * with a small real tool set in a working directory the user names. A try-best pause is
 * handled by the pause policy (`--on-pause`, `tryBest.onPause`): stop, continue, or hand off.
 */
import type { LoopguardEvent } from "@loopguard/effect"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { textFlag } from "../text-flag.js"
import { endpointFlags, outputFlags, prepareEndpoint, warnIfNoApiKey } from "../endpoint.js"
import { RunFailed, UsageError } from "../errors.js"
import { runWithPausePolicy } from "../pause/index.js"
import { onFirstSignal } from "../signals.js"
import { storeFailure } from "../store-target.js"
import { quotedId, sessionIdProblem } from "../session-id.js"

export const runCommand = Command.make(
  "run",
  {
    ...endpointFlags,
    prompt: textFlag("prompt").pipe(Flag.optional, Flag.withDescription("the user turn (leave out to resume --session as it was left)")),
    session: textFlag("session").pipe(Flag.withDefault("run"), Flag.withDescription("session id in the store named by --session-dir DIR or --store URL (default: run)")),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("print only JSON Lines: every event, then the report")),
    quiet: Flag.Boolean("quiet").pipe(Flag.withDefault(false), Flag.withDescription("print only the answer and the exit line"))
  },
  (flags) =>
    Effect.gen(function* () {
      const output = yield* outputFlags(flags.json, flags.quiet)
      if (Option.isNone(flags.prompt) && Option.isNone(flags.sessionDir) && Option.isNone(flags.store)) {
        return yield* new UsageError({ message: "--prompt is required (it may be left out only to resume a stored session: --session-dir or --store)" })
      }
      const badSession = sessionIdProblem(flags.session)
      if (badSession !== null) return yield* new UsageError({ message: `--session ${quotedId(flags.session)}: ${badSession}` })
      const endpoint = yield* prepareEndpoint(flags)
      if (endpoint.store !== undefined && Option.isNone(flags.prompt)) {
        const kept = yield* endpoint.store.messages(flags.session).pipe(Effect.mapError(storeFailure))
        if (kept.length === 0) return yield* new UsageError({ message: `--prompt is required: there is no stored session ${flags.session} to resume` })
      }
      // Said when the first request is about to go, not before: a run that is refused first (another
      // process holds the session) prints that refusal alone, one line.
      let warned = false
      const warnBeforeFirstRequest = (event: LoopguardEvent) => {
        if (warned || event.type !== "step.started") return
        warned = true
        warnIfNoApiKey(endpoint)
      }
      // First SIGINT/SIGTERM: cancel the run (the step and its tools are interrupted, the report is
      // printed, exit 130/143); a second one quits at once (signals.ts).
      const controller = new AbortController()
      const release = onFirstSignal((signal) => {
        // A closed stdout (SIGPIPE) has no one to tell: the run just ends.
        if (signal !== "SIGPIPE") process.stderr.write(`\nloopguard: ${signal}: cancelling the run (send it again to quit at once)\n`)
        controller.abort(signal)
      })
      const outcome = yield* runWithPausePolicy({
        signal: controller.signal,
        sessionId: flags.session,
        ...(endpoint.store !== undefined ? { store: endpoint.store } : {}),
        config: endpoint.config,
        llm: endpoint.llm,
        modelId: endpoint.modelId,
        tools: endpoint.tools,
        ...(Option.isSome(flags.prompt) ? { prompt: flags.prompt.value } : {}),
        system: endpoint.system,
        cwd: endpoint.cwd,
        json: output === "json",
        output,
        apiKeyEnv: endpoint.apiKeyEnv,
        secrets: endpoint.secrets,
        secretEnvNames: [endpoint.apiKeyEnv],
        onEvent: warnBeforeFirstRequest
      }).pipe(Effect.mapError(storeFailure), Effect.ensuring(Effect.sync(release)))
      if (outcome.exitCode === 2) return yield* new UsageError({ message: outcome.error ?? "on-pause choice refused" })
      if (outcome.exitCode !== 0) return yield* new RunFailed({ message: "", exitCode: 1 })
    }).pipe(Effect.scoped)
).pipe(
  Command.withDescription(
    "Run one user turn against an OpenAI-compatible endpoint with loopguard on. Tools: read_file and list_dir (confined to --cwd, symlinks resolved) and bash, which is NOT a sandbox: it runs with your user's rights and can read and change anything you can (its environment is scrubbed of keys; --approve-commands asks before each command)"
  )
)
