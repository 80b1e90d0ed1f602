/**
 * What `run` and `chat` share: the flags that name the endpoint, the model, the tools' folder,
 * the config and the store, and the one place that turns them into a config, an LLM layer, the
 * tool set and a session store.
 */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import type { LLM, LoopguardConfig, SessionStoreShape, ToolDefinition } from "@loopguard/effect"
import { pgSecrets, redactUrl } from "@loopguard/effect/store"
import { FallbackLLM } from "@loopguard/effect/llm"
import { credentialValues } from "@loopguard/effect/tools"
import { Effect, Layer, Option, Redacted, type Scope } from "effect"
import { Flag } from "effect/cli"
import { textFlag } from "./text-flag.js"
import { statSync } from "node:fs"
import { resolve } from "node:path"
import { UsageError } from "./errors.js"
import { applyOnPauseFlag } from "./pause/index.js"
import { loadCliConfig } from "./session.js"
import { ensureWritableDir } from "./session-dir.js"
import { openCliStore, storeTargetOf } from "./store-target.js"
import { runTools } from "./tools/run-tools.js"
import { unsetVariableShown } from "./env-name.js"

const isDirectory = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true

export const endpointFlags = {
  baseUrl: textFlag("base-url").pipe(Flag.withDescription("OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")),
  model: textFlag("model").pipe(Flag.withDescription("model id")),
  maxSteps: Flag.Int("max-steps").pipe(Flag.optional, Flag.withDescription("step cap per turn (default loop.maxSteps = 50)")),
  apiKeyEnv: textFlag("api-key-env").pipe(
    Flag.withDefault("OPENAI_API_KEY"),
    Flag.withDescription("name of the environment variable holding the API key (the key is never printed)")
  ),
  cwd: textFlag("cwd").pipe(
    Flag.withDefault("."),
    Flag.withDescription("working directory for the tools; the file tools are confined to it, the bash tool is NOT (it runs with your rights)")
  ),
  approveCommands: Flag.Boolean("approve-commands").pipe(
    Flag.withDefault(false),
    Flag.withDescription("ask on the terminal before each bash command (without a terminal every command is refused)")
  ),
  config: textFlag("config").pipe(Flag.optional, Flag.withDescription("config file (JSON/JSONC)")),
  sessionDir: textFlag("session-dir").pipe(
    Flag.optional,
    Flag.withDescription("keep sessions in SQLite in this folder (<dir>/sessions.db); default: in memory only")
  ),
  store: textFlag("store").pipe(Flag.optional, Flag.withDescription("keep sessions in Postgres (postgres://…) instead")),
  interactive: Flag.Boolean("interactive").pipe(
    Flag.withDefault(false),
    Flag.withDescription("ask on the terminal before a doom loop runs again (default: a doom loop fails the step)")
  ),
  onPause: textFlag("on-pause").pipe(
    Flag.optional,
    Flag.withDescription("what to do when try-best pauses: stop | continue | handoff:codex | handoff:claude | ask (turns try-best on)")
  )
} as const

export interface EndpointFlagValues {
  readonly baseUrl: string
  readonly model: string
  readonly maxSteps: Option.Option<number>
  readonly apiKeyEnv: string
  readonly cwd: string
  readonly config: Option.Option<string>
  readonly sessionDir: Option.Option<string>
  readonly store: Option.Option<string>
  readonly interactive: boolean
  readonly approveCommands: boolean
  readonly onPause: Option.Option<string>
}

export interface Endpoint {
  readonly config: LoopguardConfig
  readonly llm: Layer.Layer<LLM>
  readonly modelId: string
  readonly baseURL: string
  /** The variable holding the API key (its value is never printed or written). */
  readonly apiKeyEnv: string
  /** The API key's value when set: redacted from every line, event, stored message and tool result. */
  readonly secrets: ReadonlyArray<string>
  readonly cwd: string
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly system: string
  /** Where sessions are kept (`--session-dir` folder or `--store` URL), null: in memory only. */
  readonly storeTarget: string | null
  /** The durable store, open for the command's scope; undefined: in memory only. */
  readonly store: SessionStoreShape | undefined
}

/** Everything a turn needs, from the flags; the durable store stays open for the caller's scope. */
export const prepareEndpoint = (flags: EndpointFlagValues): Effect.Effect<Endpoint, UsageError, Scope.Scope> =>
  Effect.gen(function* () {
    let baseURL: URL
    try {
      baseURL = new URL(flags.baseUrl)
    } catch {
      return yield* new UsageError({ message: `--base-url: not a URL: ${flags.baseUrl}` })
    }
    // The provider appends its paths to the base: a query or fragment would end up before them.
    if (baseURL.search !== "" || baseURL.hash !== "") {
      return yield* new UsageError({ message: "--base-url: give the endpoint without a query or fragment (a key goes in the variable --api-key-env names)" })
    }
    if (baseURL.protocol !== "http:" && baseURL.protocol !== "https:") {
      return yield* new UsageError({ message: `--base-url: not an http(s) URL (${baseURL.protocol})` })
    }
    if (Option.isSome(flags.maxSteps) && flags.maxSteps.value < 1) {
      return yield* new UsageError({ message: `--max-steps: must be at least 1 (got ${flags.maxSteps.value})` })
    }
    const overrides = [
      ...(Option.isSome(flags.maxSteps) ? [{ path: "loop.maxSteps", value: flags.maxSteps.value, flag: "--max-steps" }] : []),
      ...(Option.isSome(flags.onPause) ? [{ path: "tryBest.onPause", value: flags.onPause.value, flag: "--on-pause" }] : []),
      ...(flags.interactive ? [{ path: "loop.interactive", value: true, flag: "--interactive" }] : []),
      ...(flags.approveCommands ? [{ path: "tools.approveCommands", value: true, flag: "--approve-commands" }] : [])
    ]
    const loaded = yield* loadCliConfig({ ...(Option.isSome(flags.config) ? { configPath: flags.config.value } : {}), overrides })
    // --on-pause asks for pauses, so it turns try-best on (see docs/try-best.md).
    const { config, notes } = applyOnPauseFlag(loaded, Option.isSome(flags.onPause))
    for (const note of notes) process.stderr.write(`loopguard: ${note}\n`)
    const key = process.env[flags.apiKeyEnv]
    const base = baseURL.toString().replace(/\/$/, "")
    const connection = {
      baseURL: base,
      ...(key !== undefined && key !== "" ? { apiKey: Redacted.make(key) } : {}),
      limits: { maxResponseBytes: config.stream.maxResponseBytes, maxEventBytes: config.stream.maxEventBytes }
    }
    // breaker.fallback: the breaker's reroute rung switches to this model on the same endpoint.
    const fallback = config.breaker.fallback
    const llm = Layer.merge(
      layerOpenAICompatible({ ...connection, modelId: flags.model }),
      fallback === null ? Layer.empty : FallbackLLM.fromLLM(layerOpenAICompatible({ ...connection, modelId: fallback }))
    )
    const cwd = resolve(flags.cwd)
    if (!isDirectory(cwd)) return yield* new UsageError({ message: `--cwd ${flags.cwd}: not a folder` })
    const target = yield* storeTargetOf(flags)
    if (Option.isSome(flags.sessionDir)) yield* ensureWritableDir(resolve(flags.sessionDir.value), "--session-dir")
    const store = target === null ? undefined : yield* openCliStore(target, config)
    return {
      config,
      llm,
      modelId: flags.model,
      baseURL: base,
      apiKeyEnv: flags.apiKeyEnv,
      // The store's password too (its URL, PGPASSWORD): kept from every line, event and stored message.
      secrets: [
        ...(key !== undefined && key !== "" ? [key] : []),
        ...(target === null ? [] : pgSecrets(target, process.env)),
        // Every variable that looks like a credential (STRIPE_KEY, PGPASSWORD, DATABASE_URL …):
        // kept from the model and the store even where a tool prints it from a file.
        ...credentialValues(process.env)
      ],
      cwd,
      tools: runTools(cwd, config, flags.apiKeyEnv),
      system: `You are a coding agent working in ${cwd}. Use the tools to inspect and change files; answer in text when done.`,
      storeTarget: target === null ? null : Option.isSome(flags.sessionDir) ? resolve(flags.sessionDir.value) : redactUrl(target),
      store
    } satisfies Endpoint
  })

/**
 * Said once, when the first request is about to go: an endpoint without a key is sent no
 * Authorization header at all (a local server may need none), and the person learns why a server
 * that wants one refuses.
 */
export const warnIfNoApiKey = (endpoint: Pick<Endpoint, "apiKeyEnv" | "secrets">): void => {
  if (endpoint.secrets.length > 0) return
  const state = process.env[endpoint.apiKeyEnv] === undefined ? "not set" : "empty"
  process.stderr.write(
    `loopguard: warning: ${unsetVariableShown(endpoint.apiKeyEnv, "--api-key-env")} is ${state}: requests go without an API key (no Authorization header); set it, or name another variable with --api-key-env\n`
  )
}

/** `--json` and `--quiet` name two different outputs; asking for both is a usage error. */
export const outputFlags = (json: boolean, quiet: boolean): Effect.Effect<"json" | "quiet" | "human", UsageError> =>
  json && quiet ? Effect.fail(new UsageError({ message: "--json and --quiet: choose one output" })) : Effect.succeed(json ? "json" : quiet ? "quiet" : "human")
