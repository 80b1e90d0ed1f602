/**
 * What one run carries from step to step, and the few effects every stage shares: record an
 * incident, add a user turn or a reminder, and `stop` — the single way out of the loop.
 * The context is mutable on purpose: it is owned by one `RunLoop.run` call and never escapes it.
 */
import { initUsageMeter, type CapPolicy, type ModelPrice, type ToolCallCounts, type UsageMeter } from "@loopguard/core/caps"
import { initRecovery, onNewUserTurn, type AgentRole, type RecoveryState } from "@loopguard/core/classify"
import { type AssistantMessage, type ExitReason, type Message, type ReminderKind } from "@loopguard/core/model"
import { DEFAULT_EPISODE_GAP, IncidentThrottle, incidentKind, type SubagentSummary } from "@loopguard/core/report"
import type { OutputShrink } from "@loopguard/core/context"
import { Effect } from "effect"
import type { CompactorShape } from "../compaction/Compactor.js"
import type { LoopguardConfig } from "../config/schema.js"
import type { Events } from "../events/Events.js"
import type { CompletionCheck } from "../gate/CompletionCheck.js"
import type { GoalGate } from "../gate/GoalGate.js"
import type { LlmShape, ToolSpec } from "../llm/LLM.js"
import type { SessionProcessor } from "../processor/SessionProcessor.js"
import type { SessionStore } from "../store/SessionStore.js"
import type { MonitorFactory } from "../processor/monitors.js"
import type { ToolResult, Tools } from "../tools/Tools.js"
import { CrossStepDetectors } from "@loopguard/core/judge"
import { HistoryView } from "./history-view.js"
import { makeFinishGates, type FinishGates } from "./finish-gates.js"
import type { Incident } from "./report.js"
import { RollbackGuard } from "./rollback-guard.js"
import type { RunExit, RunInput } from "./run-types.js"
import { rollbackMonitors } from "./rollback-guard.js"
import type { TryBestLadder } from "@loopguard/core/try-best"
import { hostsTryBest, newTryBest, tryBestMonitors, type TryBestSessions } from "./try-best-monitor.js"
import { localToolsOf } from "./local-tools.js"
import type { SpawnRun } from "./stages/subagent.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"

/** The services a run uses, resolved once by the RunLoop layer. */
export interface RunServices {
  readonly config: LoopguardConfig
  readonly processor: SessionProcessor["Service"]
  readonly store: SessionStore["Service"]
  readonly events: Events["Service"]
  readonly tools: Tools["Service"]
  readonly goalGate: GoalGate["Service"]
  readonly completionCheck: CompletionCheck["Service"]
  readonly compactor: CompactorShape
  readonly modelId: string
  /** The model's price; null when unknown (cost stays null, the cost cap never trips). */
  readonly price: ModelPrice | null
  /** Try-Best detectors by session: their counters outlive a run (a user turn). */
  readonly tryBest?: TryBestSessions
  /** The breaker's reroute target, with its price; null = no reroute rung. */
  readonly fallback: { readonly llm: LlmShape; readonly price: ModelPrice | null } | null
}

/** How a stage lets the step go on: `go` to the next stage, `next` to the next step, `stop` the run. */
export type Flow = "go" | "next" | "stop"

export type ExitError = { readonly tag: string; readonly message: string; readonly uiMessage?: string }

export interface RunContext {
  readonly input: RunInput
  readonly shadow: boolean
  readonly role: AgentRole
  readonly policy: CapPolicy
  readonly incidents: Array<Incident>
  /** Recoveries and retries by name, for the report. */
  readonly retries: Record<string, number>
  /** The step being run, counted over the whole session (earlier runs included). */
  step: number
  /** The session's step count when this run began. */
  readonly firstStep: number
  /** The real (non-synthetic) user message the replies answer. */
  currentUserId: string
  recovery: RecoveryState
  /** The `session.status` retry number: runs across steps and phases, back to 0 when the run goes idle. */
  statusAttempt: number
  meter: UsageMeter
  lastReply: AssistantMessage | null
  exit: RunExit | null
  structured: { readonly value: unknown } | null
  /** The breaker rerouted the run to the fallback model. */
  rerouted: boolean
  /** Steps left in which tool calls are not run (the breaker's cooldown). */
  toolCooldown: number
  /** This step's tool calls were held back by the cooldown (the breaker does not count them). */
  toolsPausedThisStep: boolean
  /** Context compactions attempted in this run (the cap counts failed ones too). */
  compactions: number
  /** A compaction happened since the stall signals last looked (they count compactions). */
  compactedSinceLastStep: boolean
  /** The compaction cap was reached and said so once. */
  compactionCapped: boolean
  /** Old tool outputs are shortened in every later request (after an overflow compaction could not fix). */
  outputShrink: OutputShrink | null
  /** A sub-agent paused in this step: the pause is the person's, so the parent pauses too. */
  childPause: { readonly detector: string; readonly detail: Readonly<Record<string, unknown>> } | null
  /** Calls admitted per tool (the per-tool caps). */
  toolCallCounts: ToolCallCounts
  /** Child runs started by the `task` tool; their usage is already in `meter`. */
  readonly subagents: Array<SubagentSummary>
  readonly nextId: (prefix: string) => string
  readonly detectors: CrossStepDetectors
  /** The session as this run sees it, caught up step by step (history-view.ts). */
  readonly history: HistoryView
  /** One incident per loop/stall episode: repeats of the same action are not filed again. */
  readonly throttle: IncidentThrottle
  readonly rollback: RollbackGuard
  /** The Try-Best detector this run feeds (null when it is off): its notes are filed after each step. */
  readonly tryBest: TryBestLadder | null
  readonly gates: FinishGates
  /** Stream monitors for the processor (Try-Best). */
  readonly monitors: ReadonlyArray<MonitorFactory>
  /** The tools of every request: the configured ones and, when asked for, the structured-output tool. */
  readonly toolSpecs: ReadonlyArray<ToolSpec>
  /** Tools answered in-process (the structured-output tool, the `task` tool). */
  readonly localTools: ReadonlyMap<string, (input: unknown) => Effect.Effect<ToolResult, SessionStoreError>>
}

/** A fresh context for a run over the session's stored history. */
/** The caps of this run: config, then `--max-steps`, then a child's budget slice; shadow mode never caps steps. */
export const policyOf = (config: LoopguardConfig, input: RunInput): CapPolicy => ({
  ...config.loop,
  maxSteps: input.budget?.maxSteps ?? input.maxSteps ?? config.loop.maxSteps,
  tokenBudget: input.budget?.tokenBudget !== undefined ? input.budget.tokenBudget : config.loop.tokenBudget,
  costBudgetUsd: input.budget?.costBudgetUsd !== undefined ? input.budget.costBudgetUsd : config.loop.costBudgetUsd,
  mode: input.shadow === true ? "none" : config.loop.capMode
})

export const makeRunContext = (s: RunServices, input: RunInput, history: ReadonlyArray<Message>, spawn?: SpawnRun): RunContext => {
  const config = s.config
  const shadow = input.shadow === true
  // Ids are unique in the session even when an earlier run issued ids it never stored.
  const taken = new Set(history.map((m) => m.id))
  let idCounter = history.length
  const nextId = (prefix: string) => {
    let id = `${input.sessionId}:${prefix}${idCounter++}`
    while (taken.has(id)) id = `${input.sessionId}:${prefix}${idCounter++}`
    taken.add(id)
    return id
  }
  const role = input.role ?? config.loop.role
  const local = localToolsOf(s, input, spawn, () => ctx)
  const step = history.filter((m) => m.role === "assistant" && m.excluded !== "replayed").length
  const rollback = new RollbackGuard(config, role, () => ctx.detectors.loopOpen)
  // Shadow replays (audit) get a detector of their own: a replay must not touch a live session's counters.
  const tryBest = !hostsTryBest(config, shadow) ? null : shadow || s.tryBest === undefined ? newTryBest(config) : s.tryBest.for(input.sessionId)
  const ctx: RunContext = {
    input,
    shadow,
    role,
    policy: policyOf(config, input),
    incidents: [],
    retries: {},
    step,
    firstStep: step,
    currentUserId: [...history].reverse().find((m) => m.role === "user" && m.synthetic === undefined)?.id ?? "",
    recovery: initRecovery(),
    statusAttempt: 0,
    // An unpriced model has an unknown cost from the start, not $0 until its first step.
    meter: s.price === null ? { ...initUsageMeter(), costUsd: null } : initUsageMeter(),
    lastReply: null,
    exit: null,
    structured: null,
    rerouted: false,
    toolCooldown: 0,
    toolsPausedThisStep: false,
    compactions: 0,
    compactedSinceLastStep: false,
    compactionCapped: false,
    outputShrink: null,
    childPause: null,
    toolCallCounts: {},
    subagents: [],
    nextId,
    detectors: new CrossStepDetectors(config, role, shadow, s.fallback !== null),
    // Crops stay stored, but switching the feature off restores the full view (seed 000).
    history: new HistoryView(s.store, input.sessionId, { enforce: !shadow, streakCrops: config.loopStreakRecovery.enabled }),
    throttle: new IncidentThrottle(DEFAULT_EPISODE_GAP, shadow),
    rollback,
    tryBest,
    gates: makeFinishGates({
      config,
      goalGate: s.goalGate,
      completionCheck: s.completionCheck,
      incident: (i) => recordIncident(s, ctx, i),
      goal: () =>
        Effect.map(s.store.messages(input.sessionId), (ms) => {
          const m = ms.find((x) => x.id === ctx.currentUserId)
          return m?.role === "user" ? m.text : ""
        }),
      messages: () => s.store.messages(input.sessionId)
    }),
    monitors: [
      ...(tryBest === null ? [] : tryBestMonitors(config, shadow, tryBest)),
      ...rollbackMonitors(rollback, shadow)
    ],
    toolSpecs: [...s.tools.specs, ...local.specs],
    localTools: local.handlers
  }
  return ctx
}

/** Who a pause stopped: the session, the agent (its role) and the model it is on now, as `session.tryBest.detected` carries them. */
export const pausedWho = (s: RunServices, ctx: RunContext) => ({ sessionId: ctx.input.sessionId, agent: ctx.role, model: activeModelId(s, ctx) })

/** The price of the model the run is on now (the fallback after a reroute). */
export const activePrice = (s: RunServices, ctx: RunContext): ModelPrice | null => (ctx.rerouted && s.fallback !== null ? s.fallback.price : s.price)

/** The model the run is on now. */
export const activeLlm = (s: RunServices, ctx: RunContext): LlmShape | undefined => (ctx.rerouted && s.fallback !== null ? s.fallback.llm : undefined)

export const activeModelId = (s: RunServices, ctx: RunContext): string => activeLlm(s, ctx)?.modelId ?? s.modelId

export const count = (ctx: RunContext, name: string, n = 1): void => {
  if (n > 0) ctx.retries[name] = (ctx.retries[name] ?? 0) + n
}

/** Files an incident with its kind, once per episode (core's IncidentThrottle). */
export const recordIncident = (s: RunServices, ctx: RunContext, i: Incident): Effect.Effect<void> =>
  Effect.suspend(() => {
    const kind = i.kind ?? incidentKind(i.detector, i.action)
    if (!ctx.throttle.admit({ ...i, kind })) return Effect.void
    ctx.incidents.push({ ...i, kind })
    return s.events.publish({ type: "incident", step: i.step, detector: i.detector, action: i.action, kind, detail: i.detail })
  })

/** A real user message: it becomes the turn the replies answer and resets the recovery counters. */
export const userTurn = (s: RunServices, ctx: RunContext, text: string): Effect.Effect<void, SessionStoreError> =>
  Effect.gen(function* () {
    const id = ctx.nextId("u")
    yield* s.store.append(ctx.input.sessionId, { role: "user", id, text })
    ctx.currentUserId = id
    ctx.recovery = onNewUserTurn(ctx.recovery)
  })

/** A synthetic user message; counted, and stored only when enforcing. */
export const remind = (s: RunServices, ctx: RunContext, kind: ReminderKind, text: string): Effect.Effect<void, SessionStoreError> =>
  Effect.suspend(() => {
    count(ctx, kind)
    return ctx.shadow ? Effect.void : s.store.append(ctx.input.sessionId, { role: "user", id: ctx.nextId("r"), text, synthetic: kind })
  })

/**
 * Records the way out at the current step. Enforcing, the run stops; in shadow mode only the first
 * exit counts and the replay goes on (`go`).
 */
export const stop = (ctx: RunContext, reason: ExitReason, error?: ExitError): Effect.Effect<Flow> =>
  Effect.sync(() => {
    if (ctx.exit === null) ctx.exit = error ? { reason, step: ctx.step, error } : { reason, step: ctx.step }
    return ctx.shadow ? "go" : "stop"
  })
