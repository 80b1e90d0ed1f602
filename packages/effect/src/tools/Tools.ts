/**
 * The tools a session may call. A tool failure is a result the model sees, never a crash of
 * the loop: unknown tools, thrown errors and timeouts all come back as `state: "error"`.
 */
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
}

export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly input: unknown
}

export interface ToolDefinition {
  readonly spec: ToolSpec
  readonly run: (input: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>
}

export interface ToolsShape {
  readonly specs: ReadonlyArray<ToolSpec>
  readonly execute: (call: ToolCall) => Effect.Effect<ToolResult>
}

export class Tools extends Context.Service<Tools, ToolsShape>()("loopguard/Tools") {
  /** No tools: every call is answered with an error result. */
  static readonly layerNone = Layer.succeed(Tools, Tools.of({ specs: [], execute: (call) => Effect.succeed(unknownTool(call)) }))

  /** Tools from plain async definitions, each run under the configured per-tool timeout. */
  static readonly layerFrom = (definitions: ReadonlyArray<ToolDefinition>) =>
    Layer.effect(
      Tools,
      Effect.gen(function* () {
        const config = yield* ConfigService
        return Tools.of(makeTools(definitions, config.loop.toolTimeoutMs))
      })
    )
}

const unknownTool = (call: ToolCall): ToolResult => ({
  state: "error",
  output: "",
  error: `Unknown tool: ${call.name}`
})

export const makeTools = (definitions: ReadonlyArray<ToolDefinition>, timeoutMs: number): ToolsShape => {
  const byName = new Map(definitions.map((d) => [d.spec.name, d]))
  return {
    specs: definitions.map((d) => d.spec),
    execute: Effect.fn("Tools.execute")(function* (call: ToolCall) {
      const def = byName.get(call.name)
      if (!def) return unknownTool(call)
      const input = call.input !== null && typeof call.input === "object" ? (call.input as Record<string, unknown>) : {}
      return yield* Effect.tryPromise({
        try: (signal) => def.run(input, signal),
        catch: (e) => e
      }).pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(timeoutMs),
          orElse: () => Effect.succeed<ToolResult>({ state: "error", output: "", error: `tool ${call.name} timed out after ${timeoutMs} ms` })
        }),
        Effect.catch((e) => Effect.succeed<ToolResult>({ state: "error", output: "", error: e instanceof Error ? e.message : String(e) }))
      )
    })
  }
}
