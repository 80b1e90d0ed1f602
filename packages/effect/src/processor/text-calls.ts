/**
 * Tool calls written in the reply's text (MCP-XML, `<tool_call>` JSON) that name an offered tool
 * are run as real calls once the reply has streamed (config `textToolCalls.mode`: `execute`, the
 * default; `rollback` leaves them to the classifier and the rollback guard as leaked markup).
 *
 * The reply is rewritten to what happened: its text keeps only the prose, each call becomes a tool
 * part with its result, and the finish becomes `tool-calls`, so the next request shows the model a
 * call and its result rather than markup it has to guess the fate of. Cut-off arguments go through
 * the same refusal as any call (`run-tool.ts`).
 */
import { textOf, toolPartsOf } from "@loopguard/core/model"
import { findTextToolCalls, type ParsedToolCall } from "@loopguard/core/toolcall"
import { Effect } from "effect"
import type { LlmRequest } from "../llm/LLM.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import type { MonitorTrip } from "./monitors.js"
import { fileIncident } from "../events/incident-door.js"
import { runToolCall, type ToolCallPart, type ToolRunContext, type ToolRunDeps } from "./run-tool.js"

/** A parsed text call as the stream part a backend would have produced. */
export const asToolCallPart = (call: ParsedToolCall, idPrefix: string): ToolCallPart => {
  const id = `${idPrefix}${call.id}`
  const server = call.server !== undefined ? { server: call.server } : {}
  if (call.argumentsValid) {
    return { type: "tool-call", id, name: call.name, ...server, input: call.arguments, ...(call.argumentsRepaired ? { argumentsRepaired: true } : {}) }
  }
  const broken = call.arguments as { error: string; raw: string }
  return { type: "tool-call", id, name: call.name, ...server, input: broken.raw, inputText: broken.raw, argumentsError: broken.error }
}

/** Runs the text calls of a reply that made no structured call; the first trip stops the rest. */
export const runTextToolCalls = (
  deps: ToolRunDeps,
  ctx: ToolRunContext,
  request: LlmRequest,
  mode: "execute" | "report" = "execute"
): Effect.Effect<MonitorTrip | null, SessionStoreError> =>
  Effect.gen(function* () {
    const reply = ctx.reply.build()
    if (toolPartsOf(reply).length > 0) return null
    // The request's tools include the run's local ones (structured output, sub-agents).
    // An alias of an offered tool counts as offered: the repair renames it before it runs.
    const offered = deps.repairs.callableNames(new Set(request.tools.map((t) => t.name)))
    if (offered.size === 0) return null
    const found = findTextToolCalls(textOf(reply), offered)
    if (found.calls.length === 0) return null
    // Only the calls that can run are told as run: one whose arguments were cut off is refused below
    // (its own incident), and a report that it ran would contradict that.
    const runnable = found.calls.filter((c) => c.argumentsValid)
    if (runnable.length > 0) {
      const incident = {
        step: ctx.step,
        detector: "text-tool-call",
        action: mode === "execute" ? "executed" : "would-execute",
        kind: "recovery" as const,
        detail: { tools: runnable.map((c) => c.name), formats: [...new Set(runnable.map((c) => c.format))], skipped: found.skipped }
      }
      yield* fileIncident(deps.events, (filed) => ctx.incidents.push(filed), incident)
    }
    // A shadow replay reports what a live run would run and leaves the recorded reply as it was.
    if (mode === "report") return null
    ctx.reply.replaceText(found.prose)
    ctx.reply.setFinish("tool-calls")
    for (const call of found.calls) {
      const part = asToolCallPart(call, `${reply.id}:`)
      ctx.reply.push(part)
      const trip = yield* runToolCall(deps, ctx, part)
      if (trip !== null) return trip
    }
    return null
  })
