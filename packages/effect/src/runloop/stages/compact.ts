/**
 * Context compaction in the loop: before a request that would pass
 * `compaction.triggerRatio` of the model's context, and after a reply the provider refused as too
 * long, the older history is summarised (the `Compactor`) and the summary stored as a synthetic
 * user message carrying the range it replaces. Capped per run, counted, and fed to the stall signals.
 */
import { contextSizeFor, isContextOverflow, nextShrink, planCompaction, shrinkToolOutputs } from "@loopguard/core/context"
import { type AssistantMessage } from "@loopguard/core/model"
import { Effect, Result } from "effect"
import type { LlmRequest, RequestMessage } from "../../llm/LLM.js"
import { requestTokens } from "../../llm/request-tokens.js"
import { requestView } from "../request.js"
import { judgeCompacted, judgeCompactionCap, judgeCompactionFailed, judgeCompactionSkipped, judgeOutputShrink, judgeOverflowRetake } from "@loopguard/core/step"
import { judge } from "../interpret.js"
import { activeLlm, activeModelId, activePrice, type Flow, type RunContext, type RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

/** The context of the model the run is on: config, then `compaction.contextSizes`, then the table. */
export const contextLimit = (s: RunServices, ctx: RunContext): number | null =>
  s.config.compaction.contextTokens ?? contextSizeFor(activeModelId(s, ctx), s.config.compaction.contextSizes)

export { requestTokens }

const compactionOn = (s: RunServices, ctx: RunContext) => s.config.compaction.enabled && ctx.mode.compacts

/**
 * Before a request: compacts when its estimate passes the trigger; true when it did. `estimate`
 * gives `requestTokens(request)` (the history view tallies it without stringifying the history).
 */
export const fitContext = (s: RunServices, ctx: RunContext, request: LlmRequest, estimate: () => number = () => requestTokens(request)): Effect.Effect<boolean, SessionStoreError> =>
  Effect.gen(function* () {
    const limit = contextLimit(s, ctx)
    if (!compactionOn(s, ctx) || limit === null) return false
    const estimatedTokens = estimate()
    if (estimatedTokens <= limit * s.config.compaction.triggerRatio) return false
    return yield* compact(s, ctx, { reason: "near-limit", estimatedTokens, contextTokens: limit })
  })

/**
 * A reply refused as too long: compact, or when there is nothing old enough to summarise (the
 * latest steps are always kept whole) shorten old tool outputs, then leave the refused reply out
 * and take the step again. When nothing can be made smaller the step's error ends the run, and the
 * report says it is the context.
 */
export const recoverOverflow = (s: RunServices, ctx: RunContext, reply: AssistantMessage): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    if (!compactionOn(s, ctx) || reply.error === undefined || !isContextOverflow(reply.error)) return "go"
    const why = { reason: "overflow", error: reply.error.message.slice(0, 300) }
    if (!(yield* compact(s, ctx, why, reply.id)) && !(yield* shrinkOutputs(s, ctx, why))) return "go"
    return (yield* judge(s, ctx, (state) => judgeOverflowRetake(state, reply.id))).flow
  })

/** Characters of tool output a request's messages carry. */
const outputChars = (messages: ReadonlyArray<RequestMessage>): number =>
  messages.reduce((n, m) => n + (m.role === "assistant" ? m.parts.reduce((k, p) => k + (p.type === "tool" ? (p.output?.length ?? 0) : 0), 0) : 0), 0)

/** The next rung of the output-shrink ladder that makes the history smaller; true when one was taken. It counts as a compaction toward the cap. */
const shrinkOutputs = (s: RunServices, ctx: RunContext, why: Readonly<Record<string, unknown>>): Effect.Effect<boolean, SessionStoreError> =>
  Effect.gen(function* () {
    if (ctx.state.compactions >= s.config.compaction.maxCompactions) return false
    yield* ctx.history.refresh
    const view = ctx.history.requestMessages([])
    const current = ctx.state.outputShrink
    const now = current === null ? outputChars(view) : outputChars(shrinkToolOutputs(view, current).messages)
    for (let rung = nextShrink(current); rung !== null; rung = nextShrink(rung)) {
      const shrunk = shrinkToolOutputs(view, rung)
      if (outputChars(shrunk.messages) >= now) continue
      const taken = rung
      yield* judge(s, ctx, (state) => judgeOutputShrink(state, taken, why, shrunk.shrunk))
      return true
    }
    return false
  })

/** Summarises the older history when there is something old enough; true when the summary was stored. */
const summarise = (s: RunServices, ctx: RunContext, why: Readonly<Record<string, unknown>>, refused?: string): Effect.Effect<boolean, SessionStoreError> =>
  Effect.gen(function* () {
    const all = yield* s.store.messages(ctx.input.sessionId)
    const view = requestView(all, true).messages.filter((m) => m.id !== refused)
    const plan = planCompaction(view, all, s.config.compaction.keepRecentSteps)
    if (plan === null) {
      yield* judge(s, ctx, (state) => judgeCompactionSkipped(state, why))
      return false
    }
    const summarised = yield* Effect.result(s.compactor.summarise(plan.older, activeLlm(s, ctx)))
    if (Result.isFailure(summarised)) {
      yield* judge(s, ctx, (state) => judgeCompactionFailed(state, why, summarised.failure.message))
      return false
    }
    const { summary, usage } = summarised.success
    const facts = { why, summary, usage, price: activePrice(s, ctx), range: plan.range, replaced: plan.older.length }
    yield* judge(s, ctx, (state) => judgeCompacted(state, facts))
    return true
  })

/** One compaction, if the cap allows and there is something old enough; true when stored. `refused`: a reply that does not count as a step. */
export const compact = (s: RunServices, ctx: RunContext, why: Readonly<Record<string, unknown>>, refused?: string): Effect.Effect<boolean, SessionStoreError> =>
  Effect.flatMap(judge(s, ctx, (state) => judgeCompactionCap(state, s.config.compaction.maxCompactions, why)), ({ judged }) =>
    judged.allowed ? summarise(s, ctx, why, refused) : Effect.succeed(false)
  )
