/**
 * Shared CLI wiring: config from file + env + flags, events rendered as text or JSON lines,
 * and the report printed last. Exit status 1 when the run did not complete.
 */
import { makeRedactor, redactDeep } from "@loopguard/core/try-best"
import {
  ConfigService,
  Events,
  loopguardLayer,
  Permission,
  RunLoop,
  SessionStore,
  Tools,
  type LLM,
  type SessionStoreError,
  type LoopguardEvent,
  type RunInput,
  type RunResult,
  type SessionStoreShape,
  type ToolDefinition,
  type LoopguardConfig
} from "@loopguard/effect"
import { makeMemoryStore, redactingStore } from "@loopguard/effect/store"
import { Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { UsageError } from "./errors.js"
import { cliPermission } from "./permission.js"
import { jsonLine, rendererFor, tapLlm, type OutputMode, type Renderer } from "./render/index.js"

export interface ConfigSourceFlags {
  readonly configPath?: string
  readonly overrides?: ReadonlyArray<{ readonly path: string; readonly value: unknown; readonly flag: string }>
  readonly patch?: (c: LoopguardConfig) => LoopguardConfig
}

/**
 * `--config FILE`, else $LOOPGUARD_CONFIG, else ./loopguard.json(c) when present: a file found, not
 * named, which may tune the detectors but not set what runs or where keys go (`FOUND_FILE_REFUSED`).
 */
export const loadCliConfig = (flags: ConfigSourceFlags): Effect.Effect<LoopguardConfig, UsageError> => {
  const named = flags.configPath ?? process.env["LOOPGUARD_CONFIG"]
  const path = named ?? ["loopguard.json", "loopguard.jsonc"].find((p) => existsSync(p))
  const onWarning = (line: string) => void process.stderr.write(`loopguard: warning: ${line}\n`)
  const file = path !== undefined ? { file: path, found: named === undefined } : {}
  return ConfigService.make({ ...file, env: process.env, overrides: flags.overrides ?? [], onWarning }).pipe(
    Effect.map((c) => (flags.patch ? flags.patch(c) : c)),
    Effect.mapError((e) => new UsageError({ message: e.errors.join("\n") }))
  )
}

export interface SessionOptions {
  readonly config: LoopguardConfig
  readonly llm: Layer.Layer<LLM>
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly json: boolean
  /** human (default), quiet, or json (the same as `json: true`). */
  readonly output?: OutputMode
  /** Prices the status line (default: unknown price). */
  readonly modelId?: string
  /** Default: one built for `output` on stdout (or on `write`). */
  readonly renderer?: Renderer
  /** The variable holding the API key: its value is never shown (the default renderer). */
  readonly apiKeyEnv?: string
  readonly write?: (line: string) => void
  readonly onEvent?: (e: LoopguardEvent) => void
  /** Where the session's messages are kept; default a fresh in-memory store. */
  readonly store?: SessionStoreShape
  /** Where the completion check runs (default: the process's working directory). */
  readonly cwd?: string
  /** Environment variables holding secrets (the API key's): kept from the completion check. */
  readonly secretEnvNames?: ReadonlyArray<string>
  /** Secret values (the API key): redacted from every line written, event, stored message and tool result. */
  readonly secrets?: ReadonlyArray<string>
}

/** Runs `inputs` in order, in one session store. */
export const runSession = (options: SessionOptions, inputs: ReadonlyArray<RunInput>): Effect.Effect<ReadonlyArray<RunResult>, SessionStoreError> =>
  inputs.length === 0 ? Effect.succeed([]) : runSessionWith(options, inputs[0]!, (_, done) => Effect.succeed(inputs[done.length] ?? null))

/**
 * Decides the next run from the results so far (e.g. resume after a pause); null ends the
 * session. Runs inside the session's Effect, so the store persists between runs.
 */
export type NextRunInput = (last: RunResult, results: ReadonlyArray<RunResult>) => Effect.Effect<RunInput | null>

export const outputOf = (options: Pick<SessionOptions, "json" | "output">): OutputMode => (options.json ? "json" : (options.output ?? "human"))

/** A store failure (second writer, disk full, corrupt record) stays typed: the command decides the exit status. */
export const runSessionWith = (options: SessionOptions, first: RunInput, next: NextRunInput): Effect.Effect<ReadonlyArray<RunResult>, SessionStoreError> => {
  const redact = makeRedactor(options.secrets ?? [])
  const print = options.write ?? ((l: string) => void process.stdout.write(l + "\n"))
  // The last gate before the terminal: whatever path a string took, it is redacted here.
  const write = (line: string) => print(redact(line))
  const mode = outputOf(options)
  const renderer =
    options.renderer ??
    rendererFor({
      mode,
      config: options.config,
      ...(options.modelId !== undefined ? { modelId: options.modelId } : {}),
      ...(options.write !== undefined ? { write } : {}),
      secretNames: options.apiKeyEnv !== undefined ? [options.apiKeyEnv] : [],
      secrets: options.secrets ?? []
    })
  const configLayer = Layer.succeed(ConfigService, options.config)
  const deps = Layer.mergeAll(
    // The renderer sees the model's parts before anything redacts them: it redacts them itself.
    tapLlm(options.llm, renderer.onParts),
    Layer.effect(Tools, Tools.make(options.tools, { secrets: options.secrets ?? [] })).pipe(Layer.provide(configLayer)),
    configLayer,
    Layer.succeed(Events, Events.make((event) => {
      const e = redactDeep(event, redact)
      options.onEvent?.(e)
      if (mode === "json") write(jsonLine(e))
      else renderer.onEvent(e)
    })),
    cliPermission(options.config.loop.interactive, process.stdin.isTTY === true && process.stderr.isTTY === true),
    Layer.succeed(SessionStore, redactingStore(options.store ?? makeMemoryStore(), redact))
  )
  return Effect.gen(function* () {
    const loop = yield* RunLoop
    const results: Array<RunResult> = []
    let input: RunInput | null = first
    while (input !== null) {
      renderer.startTurn()
      const r: RunResult = yield* loop.run(input)
      const report = redactDeep(r.report, redact)
      if (mode === "json") write(jsonLine({ type: "report", report }))
      else renderer.onReport(report)
      results.push(r)
      input = yield* next(r, results)
    }
    return results
  }).pipe(Effect.provide(
      loopguardLayer(deps, {
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
        ...(options.secretEnvNames !== undefined ? { secretEnvNames: options.secretEnvNames } : {})
      })
    ), Effect.scoped)
}
