/**
 * Tools that answer with what the trace recorded for a call. Nothing runs: the outcome a live
 * tool would have produced is the recorded one (error when the trace says `error: true` or a
 * non-zero exit code, or — when it recorded no exit status at all — when the output shows an
 * unambiguous sign of failure). A call the trace never answered gets a completed, empty result.
 */
import { type AssistantMessage, type ToolPart } from "@loopguard/core/model"
import { readUnrecordedResult } from "@loopguard/core/trace"
import { Effect, Layer } from "effect"
import type { ToolSpec } from "../llm/LLM.js"
import { Tools, type ToolCall, type ToolResult, type ToolsShape } from "../tools/Tools.js"
import { ReplayCursor } from "./ReplayCursor.js"

export interface ReplayToolResult {
  /** The step whose reply made the call. */
  readonly step: number
  readonly id: string
  readonly name: string
  /** Undefined when the trace holds no result for the call. */
  readonly result?: ToolResult
}

export const EMPTY_TOOL_RESULT: ToolResult = { state: "completed", output: "" }

const resultOf = (p: ToolPart, inferFailures: boolean): ToolResult | undefined => {
  if (p.state !== "completed" && p.state !== "error") return undefined
  const unrecorded = inferFailures && p.state === "completed" && p.exitCode === undefined && p.error === undefined
  const read = unrecorded ? readUnrecordedResult(p.output ?? "") : null
  const exitCode = p.exitCode ?? read?.exitCode
  return {
    state: read?.failed === true ? "error" : p.state,
    ...(read?.error !== undefined ? { error: read.error } : {}),
    output: p.output ?? "",
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(p.error !== undefined ? { error: p.error } : {}),
    ...(p.path !== undefined ? { path: p.path } : {}),
    ...(p.diff !== undefined ? { diff: p.diff } : {})
  }
}

/** Every recorded call of the replies (as `traceToSteps` attached the results), in order. */
export const recordedToolResults = (steps: ReadonlyArray<AssistantMessage>, inferFailures = true): Array<ReplayToolResult> =>
  steps.flatMap((reply, step) =>
    reply.parts
      .filter((p): p is ToolPart => p.type === "tool")
      .map((p) => {
        const result = resultOf(p, inferFailures)
        return result === undefined ? { step, id: p.callId, name: p.name } : { step, id: p.callId, name: p.name, result }
      })
  )

/** One spec per tool name, accepting any object: the replay must not reject what the agent sent. */
export const permissiveSpecs = (names: Iterable<string>): Array<ToolSpec> =>
  [...new Set(names)].map((name) => ({
    name,
    description: `${name} (recorded tool, replayed)`,
    inputSchema: { type: "object", additionalProperties: true }
  }))

export interface ReplayToolsOptions {
  /** Shared with the replay LLM; without it a result is matched by call id in recorded order. */
  readonly cursor?: ReplayCursor
}

/** Tools that answer each call with its recorded result in the step being replayed. */
export const makeReplayTools = (results: ReadonlyArray<ReplayToolResult>, options: ReplayToolsOptions = {}): ToolsShape => {
  const used = new Set<number>()
  const find = (call: ToolCall): number =>
    results.findIndex(
      (r, i) => !used.has(i) && r.id === call.id && (options.cursor === undefined || r.step === options.cursor.step)
    )
  return {
    specs: permissiveSpecs(results.map((r) => r.name)),
    execute: (call) =>
      Effect.sync(() => {
        const i = find(call)
        if (i < 0) return EMPTY_TOOL_RESULT
        used.add(i)
        return results[i]!.result ?? EMPTY_TOOL_RESULT
      })
  }
}

/** The replay Tools as a Layer. */
export const layerReplayTools = (results: ReadonlyArray<ReplayToolResult>, options: ReplayToolsOptions = {}) =>
  Layer.sync(Tools, () => Tools.of(makeReplayTools(results, options)))
