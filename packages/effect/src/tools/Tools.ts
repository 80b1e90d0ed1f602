/**
 * The tools a session may call. A tool failure is a result the model sees, never a crash of
 * the loop: unknown tools, thrown errors and timeouts all come back as `state: "error"`.
 */
import { makeRedactor, redactDeep } from "@loopguard/core/try-best"
import type { ToolState } from "@loopguard/core/model"
import { Context, Duration, Effect, Layer } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import type { ToolSpec } from "../llm/LLM.js"

export interface ToolResult {
  readonly state: Extract<ToolState, "completed" | "error">
  readonly output: string
  readonly exitCode?: number
  readonly error?: string
  readonly path?: string
  readonly diff?: string
  /** The tool was not run (a refused authorization, an unknown tool): `error` says why. */
  readonly notRun?: boolean
}

export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/** What a tool is given besides its input (by `Tools`; a caller running a definition itself may leave it out). */
export interface ToolRunContext {
  /**
   * The redactor every result goes through afterwards. A tool that cuts its output (the shell's
   * head and tail) applies it before the cut: a secret split by the cut would not be recognised.
   */
  readonly redact: (text: string) => string
}

export interface ToolDefinition {
  readonly spec: ToolSpec
  readonly run: (input: Record<string, unknown>, signal: AbortSignal, context?: ToolRunContext) => Promise<ToolResult>
  /**
   * The tool stops itself at the timeout and returns what it has (the shell returns the output
   * so far); the generic timeout then only steps in TIMEOUT_GRACE_MS later, as a backstop.
   */
  readonly stopsAtTimeout?: boolean
  /**
   * Asked before the tool runs (e.g. a person approving a shell command); the time it takes does
   * not count against the timeout. A refusal is the tool's error result; the tool does not run.
   */
  readonly authorize?: (input: Record<string, unknown>, signal: AbortSignal) => Promise<ToolAuthorization>
}

/**
 * A tool whose work is an Effect: at the timeout, or when the run stops, it is interrupted (its
 * finalizers run) instead of being told through an AbortSignal. A typed failure becomes the call's
 * error result, like a rejected Promise of a `ToolDefinition`.
 */
export interface EffectToolDefinition extends Omit<ToolDefinition, "run"> {
  readonly handler: (input: Record<string, unknown>) => Effect.Effect<ToolResult, unknown>
}

/** What `Tools.make` and `makeTools` take: Promise tools and Effect tools side by side. */
export type AnyToolDefinition = ToolDefinition | EffectToolDefinition

export type ToolAuthorization = { readonly allowed: true } | { readonly allowed: false; readonly reason: string }

/** How long a tool that stops itself at the timeout gets before it is interrupted anyway. */
export const TIMEOUT_GRACE_MS = 5_000

export interface ToolsShape {
  readonly specs: ReadonlyArray<ToolSpec>
  readonly execute: (call: ToolCall) => Effect.Effect<ToolResult>
}

/** The tools a session may call; a failure is a result the model sees, never a crash of the loop. */
export class Tools extends Context.Service<Tools, ToolsShape>()("loopguard/Tools") {
  /** No tools: every call is answered with an error result. */
  static readonly layerNone = Layer.succeed(Tools, Tools.of({ specs: [], execute: (call) => Effect.succeed(unknownTool(call)) }))

  /**
   * Tools from plain async definitions, each run under the configured per-tool timeout. Results
   * pass through `secrets`' redactor before the model, the store or anyone else sees them.
   */
  static readonly make = (definitions: ReadonlyArray<AnyToolDefinition>, options: { readonly secrets?: ReadonlyArray<string> } = {}) =>
    Effect.map(ConfigService, (config) => Tools.of(makeTools(definitions, config.loop.toolTimeoutMs, makeRedactor(options.secrets ?? []))))

  /** @deprecated Use `Layer.effect(Tools, Tools.make(definitions, options))`; this alias goes in the next release. */
  static readonly layerFrom = (definitions: ReadonlyArray<AnyToolDefinition>, options: { readonly secrets?: ReadonlyArray<string> } = {}) =>
    Layer.effect(Tools, Tools.make(definitions, options))
}

const unknownTool = (call: ToolCall): ToolResult => ({
  state: "error",
  output: "",
  error: `Unknown tool: ${call.name}`,
  notRun: true
})

/** One tool's own work as an Effect: an Effect handler as it is (a throw while building it is a failure), a Promise one wrapped with its signal. */
const runDefinition = (def: AnyToolDefinition, input: Record<string, unknown>, context: ToolRunContext): Effect.Effect<ToolResult, unknown> =>
  "handler" in def
    ? Effect.flatten(Effect.try({ try: () => def.handler(input), catch: (e) => e }))
    : Effect.tryPromise({ try: (signal) => def.run(input, signal, context), catch: (e) => e })

/** Tools from plain async or Effect definitions, each run under a timeout; `redact` (default: Authorization/Bearer credentials only) is applied to every result's text. */
export const makeTools = (
  definitions: ReadonlyArray<AnyToolDefinition>,
  timeoutMs: number,
  redact: (text: string) => string = makeRedactor()
): ToolsShape => {
  const byName = new Map(definitions.map((d) => [d.spec.name, d]))
  return {
    specs: definitions.map((d) => d.spec),
    execute: Effect.fn("Tools.execute")(function* (call: ToolCall) {
      const def = byName.get(call.name)
      if (!def) return unknownTool(call)
      const input = call.input !== null && typeof call.input === "object" ? (call.input as Record<string, unknown>) : {}
      const authorize = def.authorize
      const authorization =
        authorize === undefined
          ? Effect.succeed<ToolAuthorization>({ allowed: true })
          : Effect.tryPromise({ try: (signal) => authorize(input, signal), catch: (e) => e })
      const run = runDefinition(def, input, { redact }).pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(def.stopsAtTimeout === true ? timeoutMs + TIMEOUT_GRACE_MS : timeoutMs),
          orElse: () => Effect.succeed<ToolResult>({ state: "error", output: "", error: `tool ${call.name} timed out after ${timeoutMs} ms` })
        })
      )
      return yield* authorization.pipe(
        Effect.flatMap((a) => (a.allowed ? run : Effect.succeed<ToolResult>({ state: "error", output: "", error: a.reason, notRun: true }))),
        Effect.catch((e) => Effect.succeed<ToolResult>({ state: "error", output: "", error: e instanceof Error ? e.message : String(e) })),
        Effect.map((result) => redactDeep(result, redact))
      )
    })
  }
}
