/**
 * One tool call of a streaming step, from the moment its `tool-call` part arrives to its recorded
 * result. Checks run in this order, each able to stop the call before it runs:
 *
 *   1. arguments the model never finished (cut off, unreadable) → refused: the model gets the
 *      parse error as the tool's result, an incident is filed, nothing runs;
 *   2. benign argument repairs (JSON slips) and in-place repairs (aliases, defaults, nulls, server
 *      names) → applied, filed as incidents; the stored call shows the arguments that ran;
 *   3. tools held back on this step (a tool-less cap step, the breaker's cooldown) → answered, not run;
 *   4. monitors' `beforeTool` (duplicate query) → not run, the step stops;
 *   5. the ToolGate → refused: answered with its reason, not run, the step goes on; denied (doom
 *      loop): not run, the step stops; per-tool caps → answered, not run;
 *   6. run it — written ahead to the store as `running` first, so a crash in between leaves a
 *      record that it may have run — record the result, let the monitors see the finished part.
 */
import type { ReplyBuilder, StreamPart, ToolPart } from "@loopguard/core/model"
import type { Incident } from "@loopguard/core/report"
import { Effect } from "effect"
import type { Events } from "../events/Events.js"
import type { SessionStore } from "../store/SessionStore.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import type { Tools, ToolResult } from "../tools/Tools.js"
import type { makeCallRepair } from "./call-repair.js"
import type { MonitorTrip, StreamMonitor } from "./monitors.js"
import type { ToolGate, ToolGateVerdict } from "./ToolGate.js"

export type ToolCallPart = Extract<StreamPart, { type: "tool-call" }>

export interface ToolRunDeps {
  readonly events: Events["Service"]
  readonly tools: Tools["Service"]
  readonly gate: ToolGate["Service"]
  readonly store: SessionStore["Service"]
  readonly repairs: ReturnType<typeof makeCallRepair>
}

export interface ToolRunContext {
  readonly sessionId: string
  readonly step: number
  readonly reply: ReplyBuilder
  readonly monitors: ReadonlyArray<StreamMonitor>
  readonly system: string | undefined
  readonly localTools: ReadonlyMap<string, (input: unknown) => Effect.Effect<ToolResult, SessionStoreError>> | undefined
  /** Incidents filed by this step (the RunLoop adds them to the run's list). */
  readonly incidents: Array<Incident>
  /** Set when the caller holds tools back on this step (a tool-less cap step, the breaker's cooldown). */
  readonly toolsPaused?: string
  /** Per-tool caps: a refusal text means the call is answered, not run. */
  readonly admitTool?: (name: string) => Effect.Effect<string | undefined, SessionStoreError>
}

/** The result text the model reads for a call that was refused before it ran. */
export const refusedCallResult = (error: string): string =>
  `${error}. Nothing was executed. Send the complete call again with valid JSON arguments.`

const fileIncident = (deps: ToolRunDeps, ctx: ToolRunContext, incident: Incident) =>
  Effect.suspend(() => {
    ctx.incidents.push(incident)
    return deps.events.publish({
      type: "incident",
      step: incident.step,
      detector: incident.detector,
      action: incident.action,
      ...(incident.kind !== undefined ? { kind: incident.kind } : {}),
      detail: incident.detail
    })
  })

const clip = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n)}…` : s)

/** Records a call that is not run, with the reason as its error. */
const notRun = (ctx: ToolRunContext, id: string, error: string): void => {
  ctx.reply.updateTool(id, (p) => ({ ...p, state: "error", error, notRun: true }))
}

/** Steps 1–2: refuse unreadable arguments, apply and file repairs. Null when the call was refused. */
const prepareCall = (deps: ToolRunDeps, ctx: ToolRunContext, called: ToolCallPart) =>
  Effect.gen(function* () {
    if (called.argumentsError !== undefined) {
      notRun(ctx, called.id, refusedCallResult(called.argumentsError))
      yield* fileIncident(deps, ctx, {
        step: ctx.step,
        detector: "tool-arguments",
        action: "refused",
        kind: "recovery",
        detail: { tool: called.name, callId: called.id, error: called.argumentsError, raw: clip(called.inputText ?? "") }
      })
      return null
    }
    const fixed = deps.repairs.apply(called, ctx.system)
    const part = fixed.part
    const repairs = [...(called.argumentsRepaired === true ? ["argument JSON repaired"] : []), ...fixed.repairs]
    if (fixed.repairs.length > 0) ctx.reply.updateTool(part.id, (p) => ({ ...p, name: part.name, input: part.input }))
    if (repairs.length > 0) {
      yield* fileIncident(deps, ctx, {
        step: ctx.step,
        detector: "repair",
        action: "repaired",
        kind: "recovery",
        detail: { tool: part.name, callId: part.id, repairs, ...(called.inputText !== undefined ? { raw: clip(called.inputText) } : {}) }
      })
    }
    return part
  })

const checkFinished = (monitors: ReadonlyArray<StreamMonitor>, part: ToolPart, step: number): MonitorTrip | null => {
  for (const m of monitors) {
    const t = m.onToolFinished?.(part, step) ?? null
    if (t) return t
  }
  return null
}

const checkBefore = (monitors: ReadonlyArray<StreamMonitor>, part: ToolCallPart, step: number): MonitorTrip | null => {
  for (const m of monitors) {
    const t = m.beforeTool?.({ id: part.id, name: part.name, input: part.input }, step) ?? null
    if (t) return t
  }
  return null
}

/** Step 6: run the call (a local tool or the Tools service) and record its result. */
const execute = (deps: ToolRunDeps, ctx: ToolRunContext, part: ToolCallPart) =>
  Effect.gen(function* () {
    ctx.reply.updateTool(part.id, (p) => ({ ...p, state: "running" }))
    // Written ahead: from here on, a crash leaves a record that this call may have run.
    yield* deps.store.putAssistant(ctx.sessionId, ctx.reply.build())
    yield* deps.events.publish({ type: "tool.started", step: ctx.step, callId: part.id, name: part.name, input: part.input })
    const started = Date.now()
    const local = ctx.localTools?.get(part.name)
    const result = local ? yield* local(part.input) : yield* deps.tools.execute({ id: part.id, name: part.name, input: part.input })
    const finished = ctx.reply.updateTool(part.id, (p) => ({
      ...p,
      state: result.state,
      output: result.output,
      ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
      ...(result.path !== undefined ? { path: result.path } : {}),
      ...(result.diff !== undefined ? { diff: result.diff } : {}),
      ...(result.notRun === true ? { notRun: true } : {})
    }))
    yield* deps.events.publish({
      type: "tool.finished",
      step: ctx.step,
      callId: part.id,
      name: part.name,
      state: result.state,
      ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
      durationMs: Date.now() - started
    })
    yield* deps.store.putAssistant(ctx.sessionId, ctx.reply.build())
    return finished ? checkFinished(ctx.monitors, finished, ctx.step) : null
  })

/**
 * Step 5's gate verdict: its incident filed (event and report alike); a refused call answered with
 * the gate's reason and the step going on; a denied call stopping the step.
 */
const applyGateVerdict = (deps: ToolRunDeps, ctx: ToolRunContext, part: ToolCallPart, verdict: ToolGateVerdict) =>
  Effect.gen(function* () {
    const fallback = verdict._tag === "allow" ? undefined : { detector: "tool-gate", action: verdict._tag === "refuse" ? "refused" : "denied", kind: "recovery" as const }
    const incident = verdict.incident ?? fallback
    if (incident !== undefined) {
      const detail = verdict.incident?.detail ?? { tool: part.name, callId: part.id, ...(verdict._tag === "allow" ? {} : { reason: clip(verdict.reason) }) }
      yield* fileIncident(deps, ctx, { ...incident, step: ctx.step, detail })
    }
    if (verdict._tag === "allow") return "run" as const
    notRun(ctx, part.id, verdict.reason)
    if (verdict._tag === "refuse") return null
    return { outcome: "stop", monitor: "doom-loop", reason: verdict.reason } satisfies MonitorTrip
  })

/** One arrived tool call through every check, then run; a trip stops the step's stream. */
export const runToolCall = (deps: ToolRunDeps, ctx: ToolRunContext, called: ToolCallPart): Effect.Effect<MonitorTrip | null, SessionStoreError> =>
  Effect.gen(function* () {
    const part = yield* prepareCall(deps, ctx, called)
    if (part === null) return null
    if (ctx.toolsPaused !== undefined) {
      notRun(ctx, part.id, ctx.toolsPaused)
      yield* fileIncident(deps, ctx, { step: ctx.step, detector: "tools-paused", action: "refused", kind: "recovery", detail: { tool: part.name, reason: ctx.toolsPaused } })
      return null
    }
    const before = checkBefore(ctx.monitors, part, ctx.step)
    if (before !== null) {
      notRun(ctx, part.id, before.outcome === "halt" ? before.reason : "not run")
      return before
    }
    const verdict = yield* deps.gate.beforeCall(ctx.reply.build(), { id: part.id, name: part.name, input: part.input }, ctx.step)
    const gated = yield* applyGateVerdict(deps, ctx, part, verdict)
    if (gated !== "run") return gated
    const refusal = ctx.admitTool === undefined ? undefined : yield* ctx.admitTool(part.name)
    if (refusal !== undefined) {
      notRun(ctx, part.id, refusal)
      return null
    }
    return yield* execute(deps, ctx, part)
  })
