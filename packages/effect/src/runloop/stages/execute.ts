/**
 * Runs the step through the SessionProcessor under `loop.stepTimeoutMs`; at the timeout the step is
 * interrupted (the HTTP request is aborted, tools get their abort signal, what streamed is kept).
 * Cancellation and the wall clock interrupt the whole run instead (`run-limits.ts`).
 */
import { fileIncident, stopWith, takeToolCooldown } from "@loopguard/core/step"
import { Duration, Effect } from "effect"
import type { LlmRequest } from "../../llm/LLM.js"
import type { ProcessResult } from "../../processor/SessionProcessor.js"
import { act, admitTool, update } from "../interpret.js"
import type { Flow, RunContext, RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export type StepRun = ProcessResult | "timeout"

/** A step the RunLoop made tool-less (soft-cap last step, summary request) runs no tool the model calls anyway. */
const toollessStep = (ctx: RunContext, request: LlmRequest): string | undefined =>
  request.tools.length === 0 && ctx.toolSpecs.length > 0 ? "not run: no tools are available on this step (it must be answered in text)" : undefined

/** While the breaker's cooldown lasts, this step's tool calls are answered, not run. */
const takeCooldown = (ctx: RunContext): string | undefined => {
  const taken = takeToolCooldown(ctx.state)
  update(ctx, () => taken.state)
  return taken.paused
}

export const executeStep = (s: RunServices, ctx: RunContext, request: LlmRequest): Effect.Effect<StepRun, SessionStoreError> => {
  const cooldown = takeCooldown(ctx)
  const toolsPaused = toollessStep(ctx, request) ?? cooldown
  // Asked for only when the server sends no usage. The history view is the one the request was built
  // from until the step ends (it is refreshed before a request and after the step's cross-step checks).
  const viewed = ctx.history.viewMessages().length
  const promptTokens = () => ctx.history.estimateTokens(request, request.messages.slice(viewed))
  const process = s.processor.process({
    sessionId: ctx.input.sessionId,
    parentId: ctx.state.currentUserId,
    step: ctx.state.step,
    request,
    promptTokens,
    messageId: (attempt) => ctx.nextId(attempt === 1 ? "a" : `a${attempt}-`),
    monitors: ctx.monitors,
    nextStatusAttempt: () => update(ctx, (state) => ({ ...state, statusAttempt: state.statusAttempt + 1 })).statusAttempt,
    ...(ctx.mode.textToolCalls === "report" ? { textToolCalls: "report" as const } : {}),
    localTools: ctx.localTools,
    ...(ctx.state.rerouted && s.fallback !== null ? { llm: s.fallback.llm } : {}),
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
    const step = ctx.state.step
    const flow = yield* act(s, ctx, [
      fileIncident({ step, detector: "timeout", action: "stop", detail: { stepTimeoutMs: limit } }),
      stopWith("timeout", { tag: "StepTimeoutError", message: `step ${step} ran past ${limit} ms` })
    ])
    return flow === "stop" ? "stop" : "next"
  })
