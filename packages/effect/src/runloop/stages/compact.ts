/**
 * Context compaction in the loop (seed 003): before a request that would pass
 * `compaction.triggerRatio` of the model's context, and after a reply the provider refused as too
 * long, the older history is summarised (the `Compactor`) and the summary stored as a synthetic
 * user message carrying the range it replaces. Capped per run, counted, and fed to the stall signals.
 */
import { recordStep } from "@loopguard/core/caps"
import { compactionText, contextSizeFor, estimateTokens, isContextOverflow, nextShrink, planCompaction, shrinkToolOutputs } from "@loopguard/core/context"
import { type AssistantMessage } from "@loopguard/core/model"
import { Effect, Result } from "effect"
import type { LlmRequest, RequestMessage } from "../../llm/LLM.js"
import { requestView } from "../request.js"
import { activeLlm, activeModelId, activePrice, count, recordIncident, type Flow, type RunContext, type RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

/** The context of the model the run is on: config, then `compaction.contextSizes`, then the table. */
export const contextLimit = (s: RunServices, ctx: RunContext): number | null =>
  s.config.compaction.contextTokens ?? contextSizeFor(activeModelId(s, ctx), s.config.compaction.contextSizes)

export const requestTokens = (request: LlmRequest): number =>
  estimateTokens((request.system ?? "") + JSON.stringify(request.messages) + JSON.stringify(request.tools))

const compactionOn = (s: RunServices, ctx: RunContext) => s.config.compaction.enabled && !ctx.shadow

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
    yield* s.store.exclude(ctx.input.sessionId, reply.id, "replayed")
    ctx.meter = { ...ctx.meter, stepsUsed: ctx.meter.stepsUsed - 1 }
    return "next"
  })

/** Characters of tool output a request's messages carry. */
const outputChars = (messages: ReadonlyArray<RequestMessage>): number =>
  messages.reduce((n, m) => n + (m.role === "assistant" ? m.parts.reduce((k, p) => k + (p.type === "tool" ? (p.output?.length ?? 0) : 0), 0) : 0), 0)

/** The next rung of the output-shrink ladder that makes the history smaller; true when one was taken. It counts as a compaction toward the cap. */
const shrinkOutputs = (s: RunServices, ctx: RunContext, why: Readonly<Record<string, unknown>>): Effect.Effect<boolean, SessionStoreError> =>
  Effect.gen(function* () {
    if (ctx.compactions >= s.config.compaction.maxCompactions) return false
    yield* ctx.history.refresh
    const view = ctx.history.requestMessages([])
    const now = ctx.outputShrink === null ? outputChars(view) : outputChars(shrinkToolOutputs(view, ctx.outputShrink).messages)
    for (let rung = nextShrink(ctx.outputShrink); rung !== null; rung = nextShrink(rung)) {
      const shrunk = shrinkToolOutputs(view, rung)
      if (outputChars(shrunk.messages) >= now) continue
      ctx.outputShrink = rung
      ctx.compactions += 1
      count(ctx, "output-shrink")
      yield* recordIncident(s, ctx, { step: ctx.step, detector: "compaction", action: "shrunk-outputs", detail: { ...why, maxChars: rung.maxChars, keptWhole: rung.keepRecent, outputs: shrunk.shrunk } })
      return true
    }
    return false
  })

/** One compaction, if the cap allows and there is something old enough; true when stored. `refused`: a reply that does not count as a step. */
export const compact = (s: RunServices, ctx: RunContext, why: Readonly<Record<string, unknown>>, refused?: string): Effect.Effect<boolean, SessionStoreError> =>
  Effect.gen(function* () {
    const step = ctx.step
    if (ctx.compactions >= s.config.compaction.maxCompactions) {
      if (!ctx.compactionCapped) yield* recordIncident(s, ctx, { step, detector: "compaction", action: "cap", detail: { ...why, maxCompactions: s.config.compaction.maxCompactions } })
      ctx.compactionCapped = true
      return false
    }
    const all = yield* s.store.messages(ctx.input.sessionId)
    const view = requestView(all, true).messages.filter((m) => m.id !== refused)
    const plan = planCompaction(view, all, s.config.compaction.keepRecentSteps)
    if (plan === null) {
      yield* recordIncident(s, ctx, { step, detector: "compaction", action: "skipped", detail: { ...why, note: "nothing older than the kept steps" } })
      return false
    }
    const summarised = yield* Effect.result(s.compactor.summarise(plan.older, activeLlm(s, ctx)))
    if (Result.isFailure(summarised)) {
      // A failed attempt counts toward the cap: a broken summariser is not asked again every step.
      ctx.compactions += 1
      yield* recordIncident(s, ctx, { step, detector: "compaction", action: "failed", detail: { ...why, error: summarised.failure.message } })
      return false
    }
    const { summary, usage } = summarised.success
    // The summary request costs tokens like a step, but it is not a step of the agent.
    const metered = recordStep(ctx.meter, usage, activePrice(s, ctx))
    ctx.meter = { ...metered, stepsUsed: ctx.meter.stepsUsed }
    yield* s.store.append(ctx.input.sessionId, { role: "user", id: ctx.nextId("c"), text: compactionText(summary), synthetic: "compaction", compacts: plan.range })
    ctx.compactions += 1
    ctx.compactedSinceLastStep = true
    count(ctx, "compaction")
    yield* recordIncident(s, ctx, { step, detector: "compaction", action: "compacted", detail: { ...why, replaced: plan.older.length, compactions: ctx.compactions } })
    return true
  })
