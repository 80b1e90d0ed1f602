/**
 * `loopguard run`: one user turn through the full loop against any OpenAI-compatible endpoint,
 * with a small real tool set in a working directory the user names. A try-best pause is
 * handled by the pause policy (`--on-pause`, `try_best.on_pause`): stop, continue, or hand off.
 */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { FallbackLLM, makeJsonlStore } from "@loopguard/effect"
import { Effect, Layer, Option, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { resolve } from "node:path"
import { RunFailed, UsageError } from "../errors.js"
import { applyOnPauseFlag, runWithPausePolicy } from "../pause/index.js"
import { loadCliConfig } from "../session.js"
import { onFirstSignal } from "../signals.js"
import { builtinTools } from "../tools.js"

export const runCommand = Command.make(
  "run",
  {
    baseUrl: Flag.String("base-url").pipe(Flag.withDescription("OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")),
    model: Flag.String("model").pipe(Flag.withDescription("model id")),
    prompt: Flag.String("prompt").pipe(Flag.withDescription("the user turn")),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("print events and the report as JSON lines")),
    maxSteps: Flag.Int("max-steps").pipe(Flag.optional, Flag.withDescription("step cap (default loop.maxSteps = 50)")),
    apiKeyEnv: Flag.String("api-key-env").pipe(
      Flag.withDefault("OPENAI_API_KEY"),
      Flag.withDescription("name of the environment variable holding the API key (the key is never printed)")
    ),
    cwd: Flag.String("cwd").pipe(Flag.withDefault("."), Flag.withDescription("working directory for the tools")),
    config: Flag.String("config").pipe(Flag.optional, Flag.withDescription("config file (JSON/JSONC)")),
    sessionDir: Flag.String("session-dir").pipe(
      Flag.optional,
      Flag.withDescription("keep the session as JSON Lines in this folder (<dir>/run.jsonl); default: in memory only")
    ),
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
      const overrides = [
        ...(Option.isSome(flags.maxSteps) ? [{ path: "loop.maxSteps", value: flags.maxSteps.value, flag: "--max-steps" }] : []),
        ...(Option.isSome(flags.onPause) ? [{ path: "try_best.on_pause", value: flags.onPause.value, flag: "--on-pause" }] : []),
        ...(flags.interactive ? [{ path: "loop.interactive", value: true, flag: "--interactive" }] : [])
      ]
      const loaded = yield* loadCliConfig({ ...(Option.isSome(flags.config) ? { configPath: flags.config.value } : {}), overrides })
      // --on-pause asks for pauses, so it turns try-best on (see docs/try-best.md).
      const { config, notes } = applyOnPauseFlag(loaded, Option.isSome(flags.onPause))
      for (const note of notes) process.stderr.write(`loopguard: ${note}\n`)
      const key = process.env[flags.apiKeyEnv]
      const endpoint = {
        baseURL: baseURL.toString().replace(/\/$/, ""),
        ...(key !== undefined && key !== "" ? { apiKey: Redacted.make(key) } : {})
      }
      // breaker.fallback: the breaker's reroute rung switches to this model on the same endpoint.
      const fallback = config.breaker.fallback
      const llm = Layer.merge(
        layerOpenAICompatible({ ...endpoint, modelId: flags.model }),
        fallback === null ? Layer.empty : FallbackLLM.fromLLM(layerOpenAICompatible({ ...endpoint, modelId: fallback }))
      )
      const cwd = resolve(flags.cwd)
      // First SIGINT/SIGTERM: cancel the run (the step and its tools are interrupted, the report is
      // printed, exit 130/143); a second one quits at once (signals.ts).
      const controller = new AbortController()
      const release = onFirstSignal((signal) => {
        process.stderr.write(`\nloopguard: ${signal}: cancelling the run (send it again to quit at once)\n`)
        controller.abort()
      })
      const outcome = yield* runWithPausePolicy({
        signal: controller.signal,
        ...(Option.isSome(flags.sessionDir) ? { store: makeJsonlStore(resolve(flags.sessionDir.value)) } : {}),
        config,
        llm,
        modelId: flags.model,
        tools: builtinTools(cwd, config.loop.toolTimeoutMs),
        prompt: flags.prompt,
        system: `You are a coding agent working in ${cwd}. Use the tools to inspect and change files; answer in text when done.`,
        cwd,
        json: flags.json
      }).pipe(Effect.ensuring(Effect.sync(release)))
      if (flags.json) for (const r of outcome.results) console.log(JSON.stringify({ type: "report", report: r.report }))
      if (outcome.exitCode === 2) return yield* new UsageError({ message: outcome.error ?? "on-pause choice refused" })
      if (outcome.exitCode !== 0) return yield* new RunFailed({ message: "", exitCode: 1 })
    })
).pipe(Command.withDescription("Run one user turn against an OpenAI-compatible endpoint with loopguard on"))
