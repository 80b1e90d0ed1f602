/**
 * Drives a session step by step: build the request, let the SessionProcessor run it, classify
 * the reply, apply the bounded recovery (remind, replan, continue, exclude) or end the run, and
 * run the cross-step detectors. Every way out goes through `finish`, which builds the one report.
 *
 * Shadow mode (audit): every detector runs and every incident is reported, but nothing is
 * enforced — no reminder is stored, nothing is excluded or cropped, and the loop only stops when
 * the recorded steps run out; the first exit the loop would have taken is kept as `exit`.
 */
import {
  capDecision,
  capUsageOf,
  classifyStep,
  decideRecovery,
  detectStreak,
  hasPendingClientTool,
  initBreaker,
  initRecovery,
  initUsageMeter,
  markSummaryDone,
  onNewUserTurn,
  priceFor,
  recordStep,
  recordToolResult,
  reminderText,
  repeatedAction,
  TextLoopDetector,
  toolPartsOf,
  TEXT_LOOP_MILD_PROMPT,
  TEXT_LOOP_STRONG_PROMPT,
  TryBestMonitor,
  pauseNotice,
  type AgentRole,
  type AssistantMessage,
  type CropMarker,
  type Message,
  type ExitReason,
  type ReminderKind
} from "@loopguard/core"
import { Context, Duration, Effect, Layer } from "effect"
import { Config } from "../config/Config.js"
import { Events } from "../events/Events.js"
import { LLM } from "../llm/LLM.js"
import type { MonitorFactory } from "../processor/monitors.js"
import { SessionProcessor, type ProcessResult } from "../processor/SessionProcessor.js"
import { SessionStore } from "../store/SessionStore.js"
import { Tools } from "../tools/Tools.js"
import { buildRequest } from "./request.js"
import { makeReport, type Incident, type RunReport } from "./report.js"
import { tryBestOptionsOf } from "./try-best-options.js"

const withShadowCrops = (messages: ReadonlyArray<Message>, crops: ReadonlyArray<{ on: string; crop: CropMarker }>) =>
  crops.length === 0
    ? messages
    : messages.map((m) => {
        const mine = crops.filter((c) => c.on === m.id).map((c) => c.crop)
        return m.role === "user" && mine.length > 0 ? { ...m, crops: [...(m.crops ?? []), ...mine] } : m
      })

export interface RunInput {
  readonly sessionId: string
  /** A new user turn; omit to continue the session as it stands. */
  readonly prompt?: string
  readonly system?: string
  readonly structuredOutput?: boolean
  /** Detect everything, enforce nothing (audit). */
  readonly shadow?: boolean
  /** Shadow replays: user lines recorded before a step (harness complaints, new turns). */
  readonly userTurnsBefore?: (step: number) => ReadonlyArray<string>
  /** Overrides `loop.maxSteps` (CLI `--max-steps`, audit: the number of recorded steps). */
  readonly maxSteps?: number
}

export interface RunResult {
  readonly report: RunReport
  readonly incidents: ReadonlyArray<Incident>
}

export class RunLoop extends Context.Service<RunLoop, { readonly run: (input: RunInput) => Effect.Effect<RunResult> }>()(
  "loopguard/RunLoop"
) {
  static readonly layer = Layer.effect(
    RunLoop,
    Effect.gen(function* () {
      const config = yield* Config
      const processor = yield* SessionProcessor
      const store = yield* SessionStore
      const events = yield* Events
      const tools = yield* Tools
      const llm = yield* LLM

      const run = Effect.fn("RunLoop.run")(function* (input: RunInput) {
        const shadow = input.shadow === true
        const role: AgentRole = config.loop.role
        const policy = { ...config.loop, maxSteps: input.maxSteps ?? config.loop.maxSteps, mode: shadow ? "none" as const : config.loop.capMode }
        const incidents: Array<Incident> = []
        const retries: Record<string, number> = {}
        const count = (name: string, n = 1) => {
          if (n > 0) retries[name] = (retries[name] ?? 0) + n
        }
        const history = yield* store.messages(input.sessionId)
        let idCounter = history.length
        const nextId = (prefix: string) => `${input.sessionId}:${prefix}${idCounter++}`
        let step = history.filter((m) => m.role === "assistant" && m.excluded !== "replayed").length
        const firstStep = step
        let currentUserId = [...history].reverse().find((m) => m.role === "user" && m.synthetic === undefined)?.id ?? ""
        let recovery = initRecovery()
        let textLoop = TextLoopDetector.init()
        let breaker = initBreaker()
        let meter = initUsageMeter()
        let lastReply: AssistantMessage | null = null
        const shadowCrops: Array<{ on: string; crop: CropMarker }> = []
        let exit: { reason: ExitReason; step: number; error?: { tag: string; message: string } } | null = null
        const price = priceFor(llm.modelId)

        const incident = (i: Incident) =>
          Effect.gen(function* () {
            incidents.push(i)
            yield* events.publish({ type: "incident", step: i.step, detector: i.detector, action: i.action, detail: i.detail })
          })
        const userTurn = (text: string) =>
          Effect.gen(function* () {
            const id = nextId("u")
            yield* store.append(input.sessionId, { role: "user", id, text })
            currentUserId = id
            recovery = onNewUserTurn(recovery)
          })
        const remind = (kind: ReminderKind, text: string) =>
          (count(kind), shadow) ? Effect.void : store.append(input.sessionId, { role: "user", id: nextId("r"), text, synthetic: kind })
        /** Records the way out; in shadow mode only the first one counts and the replay goes on. */
        const stop = (reason: ExitReason, at: number, error?: { tag: string; message: string }) =>
          Effect.sync(() => {
            if (exit === null) exit = error ? { reason, step: at, error } : { reason, step: at }
            return !shadow
          })

        if (input.prompt !== undefined) yield* userTurn(input.prompt)

        const tryBest = config.try_best.enabled || shadow ? new TryBestMonitor(tryBestOptionsOf(config)) : null
        const tryBestFactory: MonitorFactory | null = tryBest
          ? () => ({
              name: "try-best",
              onToolFinished: (part, at) => {
                const found = tryBest.consume({ part, step: at })
                if (!found) return null
                tryBest.reset()
                return { outcome: "paused", monitor: "try-best", notice: pauseNotice(found), incident: { ...found } }
              }
            })
          : null

        while (true) {
          for (const text of input.userTurnsBefore?.(step) ?? []) yield* userTurn(text)
          if (shadow && step - firstStep >= policy.maxSteps) break

          const cap = capDecision(policy, capUsageOf(meter))
          if (cap !== "proceed" && cap.type === "stop") {
            yield* incident({ step, detector: "budget", action: "stop", detail: { reason: cap.reason } })
            if (yield* stop(cap.reason, step)) break
          }
          const ephemeral: Array<string> = []
          const summaryReason = cap !== "proceed" && cap.type === "summary" ? cap.reason : null
          const summary = summaryReason !== null
          if (cap !== "proceed" && cap.type === "last-step") ephemeral.push(reminderText("soft-cap", role))
          if (summary) ephemeral.push(reminderText("summary", role))

          const messages = yield* store.messages(input.sessionId)
          let cropped = false
          if (config.loop_streak_recovery.enabled || shadow) {
            // Shadow mode stores nothing, so its would-be crops live here and only steer detection.
            const seen = shadow ? withShadowCrops(messages, shadowCrops) : messages
            const streak = detectStreak(seen, {
              enabled: true,
              triggerCount: config.loop_streak_recovery.trigger_count,
              maxSpan: config.loop_streak_recovery.max_span
            })
            if (streak) {
              cropped = true
              yield* incident({ step, detector: "streak-crop", action: shadow ? "detect" : "crop", detail: { ...streak.marker, replies: streak.replyIds.length } })
              // Only the new crop's size matters for the cache: older crops are already in the prefix.
              if (streak.croppedBlocks > 20) yield* incident({ step, detector: "streak-crop", action: "cache-risk", detail: { croppedBlocks: streak.croppedBlocks } })
              if (streak.persistOn !== null) {
                if (shadow) shadowCrops.push({ on: streak.persistOn, crop: streak.marker })
                else yield* store.addCrop(input.sessionId, streak.persistOn, streak.marker)
              }
            }
          }
          const action = config.repeated_action.enabled ? repeatedAction(messages, { repeats: config.repeated_action.repeats, note: reminderText("repeated-action", role) }) : null
          if (action) {
            ephemeral.push(action.note)
            yield* incident({ step, detector: "repeated-action", action: "note", detail: { signature: action.signature, count: action.count } })
          }
          const built = buildRequest({
            messages: yield* store.messages(input.sessionId),
            ...(input.system !== undefined ? { system: input.system } : {}),
            tools: tools.specs,
            toolless: cap !== "proceed",
            ephemeral: shadow ? [] : ephemeral,
            applyCrops: !shadow
          })

          const process = processor.process({
            sessionId: input.sessionId,
            parentId: currentUserId,
            step,
            request: built.request,
            messageId: (attempt) => nextId(attempt === 1 ? "a" : `a${attempt}-`),
            monitors: tryBestFactory ? [tryBestFactory] : []
          })
          const result: ProcessResult | null =
            config.loop.stepTimeoutMs === null
              ? yield* process
              : yield* process.pipe(Effect.timeoutOrElse({ duration: Duration.millis(config.loop.stepTimeoutMs), orElse: () => Effect.succeed(null) }))
          if (result === null) {
            yield* incident({ step, detector: "timeout", action: "stop", detail: { stepTimeoutMs: config.loop.stepTimeoutMs } })
            if (yield* stop("timeout", step)) break
            step += 1
            continue
          }
          const reply = result.message
          count("transport", result.attempts - 1)
          lastReply = reply
          meter = recordStep(meter, reply.usage, price)
          if (summary) meter = markSummaryDone(meter)
          const outcome = result.outcome

          if (outcome.type === "paused") {
            yield* events.publish({ type: "session.try_best.detected", step, incident: outcome.incident })
            yield* incident({ step, detector: String(outcome.incident["kind"] ?? "try-best").replace("_", "-"), action: "pause", detail: outcome.incident })
            if (yield* stop("try_best_paused", step)) break
          }
          if (outcome.type === "stop") {
            if (yield* stop("doom_loop", step, { tag: "DoomLoopError", message: outcome.reason })) break
          }
          if (outcome.type === "text-repeat") {
            yield* incident({ step, detector: "text-repeat", action: "cut", detail: { period: outcome.period, token: outcome.token } })
          }
          if (summaryReason !== null) {
            if (yield* stop(summaryReason, step)) break
          }

          const classification = classifyStep({ reply, currentUserId })
          yield* events.publish({
            type: "step.classified",
            step,
            class: classification.class,
            degraded: classification.degraded === true,
            reason: classification.reason
          })
          const decision = decideRecovery(recovery, {
            classification,
            ...(reply.finish !== undefined ? { finish: reply.finish } : {}),
            pendingClientTool: hasPendingClientTool(reply),
            outcome: outcome.type === "text-repeat" ? "text-repeat" : "normal",
            structuredOutput: input.structuredOutput === true,
            role,
            limits: config.recovery,
            ...(reply.error !== undefined ? { error: reply.error } : {})
          })
          recovery = decision.state
          const act = decision.action

          // Cross-step detectors see every recorded step, whatever the recovery says.
          const loop = config.text_loop.enabled
            ? TextLoopDetector.consume(textLoop, reply, { cropped }, { ...config.text_loop, prefixes: ["let me ", "i'll ", "i will ", "let's "] })
            : null
          if (loop) textLoop = loop.state
          let breakerAction: ReturnType<typeof recordToolResult>["action"] = null
          if (config.breaker.enabled) {
            for (const part of toolPartsOf(reply)) {
              if (part.state !== "completed" && part.state !== "error") continue
              const ok = part.state === "completed" && (part.exitCode === undefined || part.exitCode === 0)
              const d = recordToolResult(breaker, { ok, tool: part.name, ...(part.error !== undefined ? { error: part.error } : {}) }, config.breaker)
              breaker = d.state
              if (d.action) breakerAction = d.action
            }
          }

          if (act.type !== "next-step") {
            yield* events.publish({ type: "recovery", step, action: act.type, ...(act.type === "remind" ? { kind: act.kind, text: act.text } : {}), ...(act.type === "exit" ? { kind: act.reason } : {}) })
          }
          if (act.type === "remind") {
            yield* incident({ step, detector: act.kind === "text-repeat-remind" || act.kind === "text-repeat-replan" ? "text-repeat" : classification.class, action: act.kind, detail: { reason: classification.reason } })
            if (act.exclude && !shadow) yield* store.exclude(input.sessionId, reply.id, act.exclude)
            yield* remind(act.kind, act.text)
          } else if (act.type === "exit") {
            if (act.reason !== "final") yield* incident({ step, detector: classification.class, action: `exit:${act.reason}`, detail: { reason: classification.reason, ...(act.error ? { error: act.error } : {}) } })
            if (yield* stop(act.reason, step, act.error)) break
          } else if (act.type === "final") {
            if (yield* stop("final", step)) break
          }

          if (loop?.trigger) {
            const level = loop.trigger.level
            yield* incident({ step, detector: "text-loop", action: level, detail: { count: loop.trigger.count, key: loop.trigger.key.slice(0, 120) } })
            if (level === "terminate") {
              if (yield* stop("text_loop", step, { tag: "TextLoopError", message: "Text loop detected" })) break
            } else yield* remind(level === "mild" ? "text-loop-mild" : "text-loop-strong", level === "mild" ? TEXT_LOOP_MILD_PROMPT : TEXT_LOOP_STRONG_PROMPT)
          }
          if (breakerAction) {
            yield* incident({ step, detector: "breaker", action: breakerAction.type, detail: { trigger: breakerAction.trigger, detail: breakerAction.detail } })
            if (breakerAction.type === "hand-back") {
              if (yield* stop("circuit_open", step, breakerAction.error)) break
            } else yield* remind("breaker-degrade", reminderText("breaker-degrade", role))
          }
          step += 1
        }

        const report = makeReport({
          exit,
          shadow,
          stepsUsed: meter.stepsUsed,
          meter,
          messages: yield* store.messages(input.sessionId),
          lastReply,
          incidents,
          retries,
          sessionId: input.sessionId
        })
        yield* events.publish({ type: "run.finished", report })
        return { report, incidents } satisfies RunResult
      })
      return RunLoop.of({ run })
    })
  )
}
