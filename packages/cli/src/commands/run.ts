/**
 * `loopguard run`: one user turn through the full loop against any OpenAI-compatible endpoint,
 * with a small real tool set in a working directory the user names. A try-best pause is
 * handled by the pause policy (`--on-pause`, `try_best.on_pause`): stop, continue, or hand off.
 */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { FallbackLLM } from "@loopguard/effect/llm"
import { makeRedactor } from "@loopguard/core/try-best"
import { Effect, Layer, Option, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { statSync } from "node:fs"
import { resolve } from "node:path"
import { RunFailed, UsageError } from "../errors.js"
import { applyOnPauseFlag, runWithPausePolicy } from "../pause/index.js"
import { loadCliConfig } from "../session.js"
import { ensureWritableDir } from "../session-dir.js"
import { openCliStore, storeFailure, storeTargetOf } from "../store-target.js"
import { onFirstSignal } from "../signals.js"
import { runTools } from "../tools/run-tools.js"

const isDirectory = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true

export const runCommand = Command.make(
  "run",
  {
    baseUrl: Flag.String("base-url").pipe(Flag.withDescription("OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")),
    model: Flag.String("model").pipe(Flag.withDescription("model id")),
    prompt: Flag.String("prompt").pipe(Flag.optional, Flag.withDescription("the user turn (leave out to resume --session as it was left)")),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("print events and the report as JSON lines")),
    maxSteps: Flag.Int("max-steps").pipe(Flag.optional, Flag.withDescription("step cap (default loop.maxSteps = 50)")),
    apiKeyEnv: Flag.String("api-key-env").pipe(
      Flag.withDefault("OPENAI_API_KEY"),
      Flag.withDescription("name of the environment variable holding the API key (the key is never printed)")
    ),
    cwd: Flag.String("cwd").pipe(
      Flag.withDefault("."),
      Flag.withDescription("working directory for the tools; the file tools are confined to it, the bash tool is NOT (it runs with your rights)")
    ),
    approveCommands: Flag.Boolean("approve-commands").pipe(
      Flag.withDefault(false),
      Flag.withDescription("ask on the terminal before each bash command (without a terminal every command is refused)")
    ),
    config: Flag.String("config").pipe(Flag.optional, Flag.withDescription("config file (JSON/JSONC)")),
    sessionDir: Flag.String("session-dir").pipe(
      Flag.optional,
      Flag.withDescription("keep the session in SQLite in this folder (<dir>/sessions.db); default: in memory only")
    ),
    store: Flag.String("store").pipe(Flag.optional, Flag.withDescription("keep the session in Postgres (postgres://…) instead")),
    session: Flag.String("session").pipe(Flag.withDefault("run"), Flag.withDescription("session id in the store (default: run)")),
    interactive: Flag.Boolean("interactive").pipe(
      Flag.withDefault(false),
      Flag.withDescription("ask on the terminal before a doom loop runs again (default: a doom loop fails the step)")
    ),
    onPause: Flag.String("on-pause").pipe(Flag.optional, Flag.withDescription("what to do when try-best pauses: stop | continue | handoff:codex | handoff:claude | ask (turns try-best on)"))
  },
  (flags) =>
    Effect.gen(function* () {
      let baseURL: URL
      try {
        baseURL = new URL(flags.baseUrl)
      } catch {
        return yield* new UsageError({ message: `--base-url: not a URL: ${flags.baseUrl}` })
      }
      if (Option.isSome(flags.maxSteps) && flags.maxSteps.value < 1) {
        return yield* new UsageError({ message: `--max-steps: must be at least 1 (got ${flags.maxSteps.value})` })
      }
      const target = yield* storeTargetOf(flags)
      if (Option.isNone(flags.prompt) && target === null) {
        return yield* new UsageError({ message: "--prompt is required (it may be left out only to resume a stored session: --session-dir or --store)" })
      }
      const overrides = [
        ...(Option.isSome(flags.maxSteps) ? [{ path: "loop.maxSteps", value: flags.maxSteps.value, flag: "--max-steps" }] : []),
        ...(Option.isSome(flags.onPause) ? [{ path: "try_best.on_pause", value: flags.onPause.value, flag: "--on-pause" }] : []),
        ...(flags.interactive ? [{ path: "loop.interactive", value: true, flag: "--interactive" }] : []),
        ...(flags.approveCommands ? [{ path: "tools.approveCommands", value: true, flag: "--approve-commands" }] : [])
      ]
      const loaded = yield* loadCliConfig({ ...(Option.isSome(flags.config) ? { configPath: flags.config.value } : {}), overrides })
      // --on-pause asks for pauses, so it turns try-best on (see docs/try-best.md).
      const { config, notes } = applyOnPauseFlag(loaded, Option.isSome(flags.onPause))
      for (const note of notes) process.stderr.write(`loopguard: ${note}\n`)
      const key = process.env[flags.apiKeyEnv]
      const secrets = key !== undefined && key !== "" ? [key] : []
      const endpoint = {
        baseURL: baseURL.toString().replace(/\/$/, ""),
        ...(key !== undefined && key !== "" ? { apiKey: Redacted.make(key) } : {}),
        limits: { maxResponseBytes: config.stream.maxResponseBytes, maxEventBytes: config.stream.maxEventBytes }
      }
      // breaker.fallback: the breaker's reroute rung switches to this model on the same endpoint.
      const fallback = config.breaker.fallback
      const llm = Layer.merge(
        layerOpenAICompatible({ ...endpoint, modelId: flags.model }),
        fallback === null ? Layer.empty : FallbackLLM.fromLLM(layerOpenAICompatible({ ...endpoint, modelId: fallback }))
      )
      const cwd = resolve(flags.cwd)
      if (!isDirectory(cwd)) return yield* new UsageError({ message: `--cwd ${flags.cwd}: not a folder` })
      if (Option.isSome(flags.sessionDir)) yield* ensureWritableDir(resolve(flags.sessionDir.value), "--session-dir")
      const store = target === null ? null : yield* openCliStore(target, config)
      if (store !== null && Option.isNone(flags.prompt) && (yield* store.messages(flags.session).pipe(Effect.mapError(storeFailure))).length === 0) {
        return yield* new UsageError({ message: `--prompt is required: there is no stored session ${flags.session} to resume` })
      }
      // First SIGINT/SIGTERM: cancel the run (the step and its tools are interrupted, the report is
      // printed, exit 130/143); a second one quits at once (signals.ts).
      const controller = new AbortController()
      const release = onFirstSignal((signal) => {
        process.stderr.write(`\nloopguard: ${signal}: cancelling the run (send it again to quit at once)\n`)
        controller.abort()
      })
      const outcome = yield* runWithPausePolicy({
        signal: controller.signal,
        sessionId: flags.session,
        ...(store !== null ? { store } : {}),
        config,
        llm,
        modelId: flags.model,
        tools: runTools(cwd, config, flags.apiKeyEnv),
        ...(Option.isSome(flags.prompt) ? { prompt: flags.prompt.value } : {}),
        system: `You are a coding agent working in ${cwd}. Use the tools to inspect and change files; answer in text when done.`,
        cwd,
        json: flags.json,
        secrets,
        secretEnvNames: [flags.apiKeyEnv]
      }).pipe(Effect.mapError(storeFailure), Effect.ensuring(Effect.sync(release)))
      const redact = makeRedactor(secrets)
      if (flags.json) for (const r of outcome.results) console.log(redact(JSON.stringify({ type: "report", report: r.report })))
      if (outcome.exitCode === 2) return yield* new UsageError({ message: outcome.error ?? "on-pause choice refused" })
      if (outcome.exitCode !== 0) return yield* new RunFailed({ message: "", exitCode: 1 })
    }).pipe(Effect.scoped)
).pipe(
  Command.withDescription(
    "Run one user turn against an OpenAI-compatible endpoint with loopguard on. Tools: read_file and list_dir (confined to --cwd, symlinks resolved) and bash, which is NOT a sandbox: it runs with your user's rights and can read and change anything you can (its environment is scrubbed of keys; --approve-commands asks before each command)"
  )
)
