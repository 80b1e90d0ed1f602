/**
 * Runs the step through the SessionProcessor under `loop.stepTimeoutMs`; at the timeout the step is
 * interrupted (the HTTP request is aborted, tools get their abort signal, what streamed is kept).
 * Cancellation and the wall clock interrupt the whole run instead (`run-limits.ts`).
 */
import { admitToolCall, capFor } from "@loopguard/core/caps"
import { Duration, Effect } from "effect"
import type { LlmRequest } from "../../llm/LLM.js"
import type { ProcessResult } from "../../processor/SessionProcessor.js"
import { recordIncident, stop, type Flow, type RunContext, type RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export type StepRun = ProcessResult | "timeout"

/** While the breaker's cooldown lasts, this step's tool calls are answered, not run. */
const takeCooldown = (ctx: RunContext): string | undefined => {
  ctx.toolsPausedThisStep = ctx.toolCooldown > 0
  if (!ctx.toolsPausedThisStep) return undefined
  ctx.toolCooldown -= 1
  return `not run: tool execution is paused after repeated tool failures (${ctx.toolCooldown} more step${ctx.toolCooldown === 1 ? "" : "s"} after this one)`
}

/** The per-tool call caps (`toolCaps`): a refused call is answered with the refusal, and filed. */
export const admitTool = (s: RunServices, ctx: RunContext, name: string): Effect.Effect<string | undefined, SessionStoreError> =>
  Effect.gen(function* () {
    const admitted = admitToolCall(ctx.toolCallCounts, name, s.config.toolCaps)
    ctx.toolCallCounts = admitted.counts
    if (admitted.refusal === null) return undefined
    // A replay reports the cap but runs the recorded call: shadow mode enforces nothing.
    const action = ctx.shadow ? "detect" : "refused"
    yield* recordIncident(s, ctx, { step: ctx.step, detector: "tool-cap", action, detail: { tool: name, cap: capFor(name, s.config.toolCaps) } })
    return ctx.shadow ? undefined : admitted.refusal
  })

/** A step the RunLoop made tool-less (soft-cap last step, summary request) runs no tool the model calls anyway. */
const toollessStep = (ctx: RunContext, request: LlmRequest): string | undefined =>
  request.tools.length === 0 && ctx.toolSpecs.length > 0 ? "not run: no tools are available on this step (it must be answered in text)" : undefined

export const executeStep = (s: RunServices, ctx: RunContext, request: LlmRequest): Effect.Effect<StepRun, SessionStoreError> => {
  const cooldown = takeCooldown(ctx)
  const toolsPaused = toollessStep(ctx, request) ?? cooldown
  const process = s.processor.process({
    sessionId: ctx.input.sessionId,
    parentId: ctx.currentUserId,
    step: ctx.step,
    request,
    messageId: (attempt) => ctx.nextId(attempt === 1 ? "a" : `a${attempt}-`),
    monitors: ctx.monitors,
    nextStatusAttempt: () => (ctx.statusAttempt += 1),
    ...(ctx.shadow ? { textToolCalls: "report" as const } : {}),
    localTools: ctx.localTools,
    ...(ctx.rerouted && s.fallback !== null ? { llm: s.fallback.llm } : {}),
    ...(toolsPaused !== undefined ? { toolsPaused } : {}),
    admitTool: (name) => admitTool(s, ctx, name)
  })
  const limit = s.config.loop.stepTimeoutMs
  return limit === null ? process : process.pipe(Effect.timeoutOrElse({ duration: Duration.millis(limit), orElse: () => Effect.succeed("timeout" as const) }))
}

/** A step that ran past its timeout: the run ends, unless replaying. */
export const onStepTimeout = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const limit = s.config.loop.stepTimeoutMs
    yield* recordIncident(s, ctx, { step: ctx.step, detector: "timeout", action: "stop", detail: { stepTimeoutMs: limit } })
    const flow = yield* stop(ctx, "timeout", { tag: "StepTimeoutError", message: `step ${ctx.step} ran past ${limit} ms` })
    return flow === "stop" ? "stop" : "next"
  })
