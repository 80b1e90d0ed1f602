/**
 * The one place a step's judgement (`@loopguard/core/step`) becomes effects: it alone writes the
 * run's state, files incidents, publishes the judge's events and writes to the store for a policy
 * outcome. For those outcomes it alone reads the run's mode (`ctx.mode.enforce`, run-mode.ts):
 * replaying, it files and counts what would have happened, keeps the first exit, and changes
 * nothing else.
 */
import { incidentKind } from "@loopguard/core/report"
import type { AssistantMessage } from "@loopguard/core/model"
import {
  counted,
  exited,
  judgeCompletionCheck,
  judgeGateVerdict,
  judgeGoalGateAnswer,
  judgeGoalGateTurn,
  judgeToolCall,
  onUserTurn,
  stopWith,
  uncountStep,
  type FinishGateVerdict,
  type Judged,
  type RunState,
  type StepAction
} from "@loopguard/core/step"
import { Effect } from "effect"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { askGoalGate, finishGateSettings } from "./finish-gates.js"
import type { Incident } from "./report.js"
import { pausedWho, type Flow, type RunContext, type RunServices } from "./run-context.js"

/** A state change that needs no action (facts the effectful parts gathered); applied at once. */
export const update = (ctx: RunContext, change: (state: RunState) => RunState): RunState => {
  ctx.state = change(ctx.state)
  return ctx.state
}

/** Files an incident with its kind, once per episode (core's IncidentThrottle). */
const fileIncident = (s: RunServices, ctx: RunContext, i: Incident): Effect.Effect<void> =>
  Effect.suspend(() => {
    const kind = i.kind ?? incidentKind(i.detector, i.action)
    if (!ctx.throttle.admit({ ...i, kind })) return Effect.void
    update(ctx, (st) => ({ ...st, incidents: [...st.incidents, { ...i, kind }] }))
    return s.events.publish({ type: "incident", step: i.step, detector: i.detector, action: i.action, kind, detail: i.detail })
  })

const appendUserTurn = (s: RunServices, ctx: RunContext, text: string): Effect.Effect<void, SessionStoreError> =>
  Effect.gen(function* () {
    const id = ctx.nextId("u")
    yield* s.store.append(ctx.input.sessionId, { role: "user", id, text })
    update(ctx, (st) => onUserTurn(st, id))
  })

/** Publishes an event the judge asked for. */
const publish = (s: RunServices, ctx: RunContext, a: StepAction & { readonly _tag: "Classified" | "Recovered" | "AnnouncePause" }): Effect.Effect<void> => {
  if (a._tag === "Classified") return s.events.publish({ type: "step.classified", step: a.step, class: a.class, degraded: a.degraded, reason: a.reason })
  if (a._tag === "AnnouncePause") return s.events.publish({ type: "session.try_best.detected", step: a.step, ...pausedWho(s, ctx), incident: a.incident })
  return s.events.publish({ type: "recovery", step: a.step, action: a.action, ...(a.kind !== undefined ? { kind: a.kind } : {}), ...(a.text !== undefined ? { text: a.text } : {}) })
}

/** Actions that change the session or the run only when enforcing; a replay leaves them out. */
const enforce = (s: RunServices, ctx: RunContext, a: StepAction): Effect.Effect<void, SessionStoreError> => {
  const session = ctx.input.sessionId
  switch (a._tag) {
    case "Exclude":
      return s.store.exclude(session, a.messageId, a.reason)
    case "TakeBack":
      return Effect.map(s.store.exclude(session, a.messageId, a.reason), () => void update(ctx, (st) => (a.count === undefined ? uncountStep(st) : counted(uncountStep(st), a.count))))
    case "CoolDownTools":
      return Effect.sync(() => void update(ctx, (st) => ({ ...st, toolCooldown: a.steps })))
    case "SwitchModel":
      return Effect.flatMap(
        Effect.sync(() => update(ctx, (st) => ({ ...st, rerouted: true }))),
        () => fileIncident(s, ctx, a.incident)
      )
    default:
      return Effect.void
  }
}

/** One action; `stop` when an enforcing run ends here, `next` when the step is taken again. */
const apply = (s: RunServices, ctx: RunContext, a: StepAction): Effect.Effect<Flow, SessionStoreError> => {
  switch (a._tag) {
    case "FileIncident":
      return Effect.as(fileIncident(s, ctx, a.incident), "go")
    case "RefuseTool":
      return Effect.as(fileIncident(s, ctx, !ctx.mode.enforce ? { ...a.incident, action: "detect" } : a.incident), "go")
    case "Classified":
    case "Recovered":
    case "AnnouncePause":
      return Effect.as(publish(s, ctx, a), "go")
    case "UserTurn":
      return Effect.as(appendUserTurn(s, ctx, a.text), "go")
    case "Remind":
      update(ctx, (st) => counted(st, a.kind))
      return !ctx.mode.enforce ? Effect.succeed("go") : Effect.as(s.store.append(ctx.input.sessionId, { role: "user", id: ctx.nextId("r"), text: a.text, synthetic: a.kind }), "go")
    case "AppendCompaction":
      return Effect.as(s.store.append(ctx.input.sessionId, { role: "user", id: ctx.nextId("c"), text: a.text, synthetic: "compaction", compacts: a.compacts }), "go")
    case "Crop":
      return Effect.as(s.store.addCrop(ctx.input.sessionId, a.on, a.marker), "go")
    case "Stop":
      // Only the first exit counts; a replay records it and goes on.
      update(ctx, (st) => exited(st, a.reason, a.error))
      return Effect.succeed(!ctx.mode.enforce ? "go" : "stop")
    case "EndReplay":
      return Effect.succeed(!ctx.mode.enforce ? "stop" : "go")
    case "Enforce":
      return !ctx.mode.enforce ? Effect.succeed("go") : applyAll(s, ctx, a.actions)
    case "PassFinishGates":
      return passFinishGates(s, ctx, a.reply)
    default:
      return !ctx.mode.enforce ? Effect.succeed("go") : Effect.as(enforce(s, ctx, a), a._tag === "TakeBack" ? "next" : "go")
  }
}

/** The completion check, then the goal gate, each judged with its cap; the first verdict that is not a pass wins. */
const finishGatesVerdict = (s: RunServices, ctx: RunContext, reply: AssistantMessage): Effect.Effect<FinishGateVerdict, SessionStoreError> =>
  Effect.gen(function* () {
    const gates = finishGateSettings(s.config)
    const command = gates.command
    if (command !== null) {
      const r = yield* s.completionCheck.run(command, s.config.completionCheck.timeoutMs)
      const checked = (yield* judge(s, ctx, (state) => judgeCompletionCheck(state, command, gates.maxFailures, r))).judged
      if (checked.verdict !== null) return checked.verdict
    }
    if (!gates.goalGate) return { type: "accept" }
    const turn = (yield* judge(s, ctx, (state) => judgeGoalGateTurn(state, gates.maxChecks))).judged
    if (turn.verdict !== null) return turn.verdict
    const answer = yield* askGoalGate(s, ctx.input.sessionId, ctx.state.currentUserId, reply)
    return (yield* judge(s, ctx, (state) => judgeGoalGateAnswer(state, answer))).judged.verdict
  })

/** A final answer ends the run only past the finish gates; a replay runs no gate. */
const passFinishGates = (s: RunServices, ctx: RunContext, reply: AssistantMessage): Effect.Effect<Flow, SessionStoreError> => {
  if (!ctx.mode.enforce) return apply(s, ctx, stopWith("final"))
  return Effect.flatMap(finishGatesVerdict(s, ctx, reply), (verdict) => Effect.map(judge(s, ctx, (state) => judgeGateVerdict(state, verdict)), ({ flow }) => flow))
}

/**
 * Applies a judgement: its state first, then its actions in order. An enforced stop ends the list
 * (nothing after it may override it); a step taken back answers `next`.
 */
export const interpret = (s: RunServices, ctx: RunContext, judgement: Judged): Effect.Effect<Flow, SessionStoreError> =>
  Effect.suspend(() => {
    update(ctx, () => judgement.state)
    return applyAll(s, ctx, judgement.actions)
  })

const applyAll = (s: RunServices, ctx: RunContext, actions: ReadonlyArray<StepAction>): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    let flow: Flow = "go"
    for (const action of actions) {
      const applied = yield* apply(s, ctx, action)
      if (applied === "stop") return "stop"
      if (applied === "next") flow = "next"
    }
    return flow
  })

/** Judges on the state as it is now (read and written with no effect between them), then applies the judgement. */
export const judge = <J extends Judged>(s: RunServices, ctx: RunContext, judging: (state: RunState) => J): Effect.Effect<{ readonly flow: Flow; readonly judged: J }, SessionStoreError> =>
  Effect.suspend(() => {
    const judgement = judging(ctx.state)
    update(ctx, () => judgement.state)
    return Effect.map(applyAll(s, ctx, judgement.actions), (flow) => ({ flow, judged: judgement }))
  })

/** A tool call against the per-tool caps: the refusal to answer it with, or undefined to run it (always, when replaying). */
export const admitTool = (s: RunServices, ctx: RunContext, tool: string): Effect.Effect<string | undefined, SessionStoreError> =>
  Effect.map(judge(s, ctx, (state) => judgeToolCall(state, tool, s.config.toolCaps)), ({ judged }) => {
    const refused = judged.actions.find((a) => a._tag === "RefuseTool")
    return !ctx.mode.enforce || refused?._tag !== "RefuseTool" ? undefined : refused.refusal
  })

/** Applies actions that leave the state as it is (each action may still update it). */
export const act = (s: RunServices, ctx: RunContext, actions: ReadonlyArray<StepAction>): Effect.Effect<Flow, SessionStoreError> =>
  Effect.suspend(() => applyAll(s, ctx, actions))
