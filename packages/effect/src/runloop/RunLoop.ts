/**
 * Drives a session step by step: build the request, let the SessionProcessor run it, classify
 * the reply, apply the bounded recovery (remind, replan, continue, exclude) or end the run, and
 * run the cross-step detectors. Every way out goes through `stop`, and one report is built at
 * the end whatever the reason.
 *
 * Shadow mode (audit): every detector runs and every incident is reported, but nothing is
 * enforced — no reminder is stored, nothing is excluded or cropped, and the loop only stops when
 * the recorded steps run out; the first exit the loop would have taken is kept as `exit`.
 */
import {
  DEFAULT_EPISODE_GAP,
  IncidentThrottle,
  incidentKind,
  capDecision,
  capUsageOf,
  classifyStep,
  costOf,
  DEFAULT_PRICE_TABLE,
  decideRecovery,
  hasPendingClientTool,
  initRecovery,
  initUsageMeter,
  markSummaryDone,
  onNewUserTurn,
  pauseNotice,
  priceFor,
  recordStep,
  reminderText,
  TryBestMonitor,
  type AgentRole,
  type PriceTable,
  type AssistantMessage,
  type ExitReason,
  type ReminderKind
} from "@loopguard/core"
import { Context, Duration, Effect, Layer } from "effect"
import { Config } from "../config/Config.js"
import { Events } from "../events/Events.js"
import { CompletionCheck } from "../gate/CompletionCheck.js"
import { GoalGate } from "../gate/GoalGate.js"
import { LLM } from "../llm/LLM.js"
import type { MonitorFactory } from "../processor/monitors.js"
import { SessionProcessor, type ProcessResult } from "../processor/SessionProcessor.js"
import { SessionStore } from "../store/SessionStore.js"
import { Tools } from "../tools/Tools.js"
import { CrossStepDetectors } from "./cross-step.js"
import { makeFinishGates } from "./finish-gates.js"
import { RollbackGuard } from "./rollback-guard.js"
import { makeReport, type Incident } from "./report.js"
import type { RunExit, RunInput, RunResult } from "./run-types.js"
import { buildRequest } from "./request.js"
import { tryBestOptionsOf } from "./try-best-options.js"

/** Completes when the signal aborts; never, without one. */
const aborted = (signal: AbortSignal | undefined): Effect.Effect<null> =>
  signal === undefined
    ? Effect.never
    : Effect.callback<null>((resume) => {
        if (signal.aborted) return resume(Effect.succeed(null))
        const onAbort = () => resume(Effect.succeed(null))
        signal.addEventListener("abort", onAbort, { once: true })
        return Effect.sync(() => signal.removeEventListener("abort", onAbort))
      })

const pausedBy = (detector: string, incident: Readonly<Record<string, unknown>>) =>
  String(incident["kind"] ?? detector).replace(/_/g, "-")

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
      const goalGate = yield* GoalGate
      const completionCheck = yield* CompletionCheck
      const price = priceFor(llm.modelId, { ...DEFAULT_PRICE_TABLE, ...(config.prices as PriceTable) })

      const run = Effect.fn("RunLoop.run")(function* (input: RunInput) {
        const shadow = input.shadow === true
        const role: AgentRole = config.loop.role
        const policy = { ...config.loop, maxSteps: input.maxSteps ?? config.loop.maxSteps, mode: shadow ? ("none" as const) : config.loop.capMode }
        const incidents: Array<Incident> = []
        const retries: Record<string, number> = {}
        const count = (name: string, n = 1) => {
          if (n > 0) retries[name] = (retries[name] ?? 0) + n
        }
        const history = yield* store.messages(input.sessionId)
        // Ids are unique in the session even when an earlier run issued ids it never stored.
        const taken = new Set(history.map((m) => m.id))
        let idCounter = history.length
        const nextId = (prefix: string) => {
          let id = `${input.sessionId}:${prefix}${idCounter++}`
          while (taken.has(id)) id = `${input.sessionId}:${prefix}${idCounter++}`
          taken.add(id)
          return id
        }
        let step = history.filter((m) => m.role === "assistant" && m.excluded !== "replayed").length
        const firstStep = step
        let currentUserId = [...history].reverse().find((m) => m.role === "user" && m.synthetic === undefined)?.id ?? ""
        let recovery = initRecovery()
        let meter = initUsageMeter()
        let lastReply: AssistantMessage | null = null
        let exit: RunExit | null = null
        const detectors = new CrossStepDetectors(config, role, shadow)
        const throttle = new IncidentThrottle(DEFAULT_EPISODE_GAP, shadow)
        const rollback = new RollbackGuard(config, role)
        const structuredName = input.structuredOutput?.toolName ?? "structured_output"
        const structuredSpec = input.structuredOutput
          ? [{ name: structuredName, description: input.structuredOutput.description ?? "Return the final result in the required structure. Call this once, when done.", inputSchema: input.structuredOutput.schema }]
          : []
        const localTools = new Map(structuredSpec.map((t) => [t.name, () => ({ state: "completed" as const, output: "Structured result received." })]))
        let structured: { value: unknown } | null = null
        const gates = makeFinishGates({
          config,
          goalGate,
          completionCheck,
          incident: (i) => incident(i),
          goal: () => Effect.map(store.messages(input.sessionId), (ms) => {
            const m = ms.find((x) => x.id === currentUserId)
            return m?.role === "user" ? m.text : ""
          }),
          messages: () => store.messages(input.sessionId)
        })

        const incident = (i: Incident) =>
          Effect.gen(function* () {
            const kind = i.kind ?? incidentKind(i.detector, i.action)
            if (!throttle.admit({ ...i, kind })) return
            incidents.push({ ...i, kind })
            yield* events.publish({ type: "incident", step: i.step, detector: i.detector, action: i.action, kind, detail: i.detail })
          })
        const userTurn = (text: string) =>
          Effect.gen(function* () {
            const id = nextId("u")
            yield* store.append(input.sessionId, { role: "user", id, text })
            currentUserId = id
            recovery = onNewUserTurn(recovery)
          })
        const remind = (kind: ReminderKind, text: string) =>
          Effect.suspend(() => {
            count(kind)
            return shadow ? Effect.void : store.append(input.sessionId, { role: "user", id: nextId("r"), text, synthetic: kind })
          })
        /** Records the way out; in shadow mode only the first one counts and the replay goes on. */
        const stop = (reason: ExitReason, at: number, error?: { tag: string; message: string }) =>
          Effect.sync(() => {
            if (exit === null) exit = error ? { reason, step: at, error } : { reason, step: at }
            return !shadow
          })

        if (input.prompt !== undefined) yield* userTurn(input.prompt)
        yield* events.publish({ type: "session.status", status: "busy", attempt: 0 })

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
          if (input.signal?.aborted === true) {
            yield* stop("cancelled", step, { tag: "CancelledError", message: "cancelled by the user" })
            break
          }

          const cap = capDecision(policy, capUsageOf(meter))
          if (cap !== "proceed" && cap.type === "stop") {
            yield* incident({ step, detector: "budget", action: "stop", detail: { reason: cap.reason } })
            if (yield* stop(cap.reason, step)) break
          }
          const summaryReason = cap !== "proceed" && cap.type === "summary" ? cap.reason : null
          const ephemeral: Array<string> = []
          const note = detectors.takeNote()
          if (note !== null) ephemeral.push(note)
          if (cap !== "proceed" && cap.type === "last-step") ephemeral.push(reminderText("soft-cap", role))
          if (summaryReason !== null) ephemeral.push(reminderText("summary", role))

          const built = buildRequest({
            messages: yield* store.messages(input.sessionId),
            ...(input.system !== undefined ? { system: input.system } : {}),
            tools: [...tools.specs, ...structuredSpec],
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
            monitors: tryBestFactory ? [tryBestFactory] : [],
            localTools
          })
          const timed: Effect.Effect<ProcessResult | "timeout"> =
            config.loop.stepTimeoutMs === null
              ? process
              : process.pipe(Effect.timeoutOrElse({ duration: Duration.millis(config.loop.stepTimeoutMs), orElse: () => Effect.succeed("timeout" as const) }))
          const result = yield* Effect.raceFirst(timed, aborted(input.signal))
          if (result === null) {
            yield* stop("cancelled", step, { tag: "CancelledError", message: "cancelled by the user" })
            break
          }
          if (result === "timeout") {
            yield* incident({ step, detector: "timeout", action: "stop", detail: { stepTimeoutMs: config.loop.stepTimeoutMs } })
            if (yield* stop("timeout", step, { tag: "StepTimeoutError", message: `step ${step} ran past ${config.loop.stepTimeoutMs} ms` })) break
            step += 1
            continue
          }
          const reply = result.message
          count("transport", result.attempts - 1)
          lastReply = reply
          meter = recordStep(meter, reply.usage, price)
          if (summaryReason !== null) meter = markSummaryDone(meter)
          const outcome = result.outcome

          if (outcome.type === "paused") {
            yield* events.publish({ type: "session.try_best.detected", step, incident: outcome.incident })
            yield* incident({ step, detector: pausedBy("try-best", outcome.incident), action: "pause", detail: outcome.incident })
            // A pause ends the turn; nothing after it (goal gate, recoveries) may override it.
            if (yield* stop("try_best_paused", step)) break
          }
          if (outcome.type === "stop") {
            if (yield* stop("doom_loop", step, { tag: "DoomLoopError", message: outcome.reason })) break
          }
          if (outcome.type === "text-repeat") {
            yield* incident({ step, detector: "text-repeat", action: "cut", detail: { ...outcome.trip } })
          }
          if (summaryReason !== null) {
            if (yield* stop(summaryReason, step)) break
          }
          const rolled = outcome.type === "continue" ? rollback.afterStep(reply) : null
          if (rolled !== null) {
            const { kind, ...evidence } = rolled.trigger
            yield* incident({ step, detector: "rollback", action: rolled.action, detail: { kind, ...evidence } })
            if (rolled.action === "rollback" && !shadow) {
              // Popped: left out of every later request, kept in the store; no turn spent.
              yield* store.exclude(input.sessionId, reply.id, "rollback")
              meter = { ...meter, stepsUsed: meter.stepsUsed - 1 }
              count("rollback")
              step += 1
              continue
            }
            if (rolled.action === "end-loop") {
              const message = `${config.rollback.max_consecutive_rollbacks} consecutive rollbacks (${kind})`
              if (yield* stop("rollback_cap", step, { tag: "RollbackCapError", message })) break
            }
          }
          const structuredCall = input.structuredOutput
            ? reply.parts.find((p) => p.type === "tool" && p.name === structuredName && p.state === "completed")
            : undefined
          if (structuredCall && structuredCall.type === "tool") {
            structured = { value: structuredCall.input }
            yield* events.publish({ type: "recovery", step, action: "final", kind: "structured-output" })
            if (yield* stop("final", step)) break
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
            structuredOutput: input.structuredOutput !== undefined,
            role,
            limits: config.recovery,
            ...(reply.error !== undefined ? { error: reply.error } : {})
          })
          recovery = decision.state
          const act = decision.action

          // Cross-step detectors see every recorded step, whatever the recovery says.
          const after = detectors.afterStep(yield* store.messages(input.sessionId), reply, step, {
            final: act.type === "final",
            costUsd: price === null ? null : costOf(reply.usage ?? {}, price)
          })
          for (const i of after.incidents) yield* incident(i)
          if (after.crop) yield* store.addCrop(input.sessionId, after.crop.on, after.crop.marker)

          if (act.type !== "next-step") {
            yield* events.publish({
              type: "recovery",
              step,
              action: act.type,
              ...(act.type === "remind" ? { kind: act.kind, text: act.text } : {}),
              ...(act.type === "exit" ? { kind: act.reason } : {})
            })
          }
          if (act.type === "remind") {
            const detector = act.kind === "text-repeat-remind" || act.kind === "text-repeat-replan" ? "text-repeat" : classification.class
            yield* incident({ step, detector, action: act.kind, detail: { reason: classification.reason } })
            if (act.exclude && !shadow) yield* store.exclude(input.sessionId, reply.id, act.exclude)
            yield* remind(act.kind, act.text)
          } else if (act.type === "exit") {
            if (act.reason !== "final") {
              yield* incident({ step, detector: classification.class, action: `exit:${act.reason}`, detail: { reason: classification.reason, ...(act.error ? { error: act.error } : {}) } })
            }
            if (yield* stop(act.reason, step, act.error)) break
          } else if (act.type === "final" && !shadow) {
            const verdict = yield* gates.check(reply, step)
            if (verdict.type === "accept") {
              if (yield* stop("final", step)) break
            } else if (verdict.type === "exit") {
              if (yield* stop(verdict.reason, step, verdict.error)) break
            } else yield* remind(verdict.kind, verdict.text)
          } else if (act.type === "final") {
            if (yield* stop("final", step)) break
          }

          if (after.pause) {
            yield* events.publish({ type: "session.try_best.detected", step, incident: after.pause })
            if (yield* stop("try_best_paused", step)) break
          }
          if (after.exit) {
            if (yield* stop(after.exit.reason, step, after.exit.error)) break
          }
          for (const r of after.reminders) yield* remind(r.kind, r.text)
          step += 1
        }

        const finalExit = exit as RunExit | null
        const report = makeReport({
          exit: finalExit,
          shadow,
          stepsUsed: meter.stepsUsed,
          meter,
          messages: yield* store.messages(input.sessionId),
          lastReply,
          incidents,
          retries,
          savedAt: store.location(input.sessionId)
        })
        yield* events.publish({ type: "session.status", status: "idle", attempt: 0 })
        yield* events.publish({ type: "run.finished", report })
        const captured = structured as { value: unknown } | null
        return { report, incidents, exit: finalExit, ...(captured ? { structured: captured.value } : {}) } satisfies RunResult
      })
      return RunLoop.of({ run })
    })
  )
}
