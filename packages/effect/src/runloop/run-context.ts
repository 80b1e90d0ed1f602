/**
 * What one run works with: its input, the services, the detectors that keep their own counters,
 * and the run's state (`@loopguard/core/step`'s `RunState`), which only the interpreter
 * (interpret.ts) replaces. The context is owned by one `RunLoop.run` call and never escapes it.
 */
import { type CapPolicy, type ModelPrice } from "@loopguard/core/caps"
import { type AgentRole } from "@loopguard/core/classify"
import { type Message } from "@loopguard/core/model"
import { DEFAULT_EPISODE_GAP, IncidentThrottle } from "@loopguard/core/report"
import { initRunState, type RunState } from "@loopguard/core/step"
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
import { RollbackGuard } from "@loopguard/core/rollback"
import type { RunInput } from "./run-types.js"
import { runModeOf, type RunMode } from "./run-mode.js"
import { rollbackMonitors } from "./rollback-monitors.js"
import type { TryBestLadder } from "@loopguard/core/try-best"
import { hostsTryBest, newTryBest, tryBestMonitors, type TryBestSessions } from "./try-best-monitor.js"
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

export type { ExitError } from "@loopguard/core/classify"

/** The tools a run answers in-process (the structured-output tool, the `task` tool). */
export interface LocalTools {
  readonly specs: ReadonlyArray<ToolSpec>
  readonly handlers: ReadonlyMap<string, (input: unknown) => Effect.Effect<ToolResult, SessionStoreError>>
}

export interface RunContext {
  readonly input: RunInput
  /** What this run does with what it sees (enforcing, or a shadow replay): run-mode.ts. */
  readonly mode: RunMode
  readonly role: AgentRole
  readonly policy: CapPolicy
  /** What the run carries from step to step. Written only by the interpreter (interpret.ts). */
  state: RunState
  readonly nextId: (prefix: string) => string
  readonly detectors: CrossStepDetectors
  /** The session as this run sees it, caught up step by step (history-view.ts). */
  readonly history: HistoryView
  /** One incident per loop/stall episode: repeats of the same action are not filed again. */
  readonly throttle: IncidentThrottle
  readonly rollback: RollbackGuard
  /** The Try-Best detector this run feeds (null when it is off): its notes are filed after each step. */
  readonly tryBest: TryBestLadder | null
  /** Stream monitors for the processor (Try-Best). */
  readonly monitors: ReadonlyArray<MonitorFactory>
  /** The tools of every request: the configured ones and, when asked for, the structured-output tool. */
  readonly toolSpecs: ReadonlyArray<ToolSpec>
  /** Tools answered in-process (the structured-output tool, the `task` tool). */
  readonly localTools: ReadonlyMap<string, (input: unknown) => Effect.Effect<ToolResult, SessionStoreError>>
}

/** The caps of this run: config, then `--max-steps`, then a child's budget slice; shadow mode never caps steps. */
export const policyOf = (config: LoopguardConfig, input: RunInput): CapPolicy => ({
  ...config.loop,
  maxSteps: input.budget?.maxSteps ?? input.maxSteps ?? config.loop.maxSteps,
  tokenBudget: input.budget?.tokenBudget !== undefined ? input.budget.tokenBudget : config.loop.tokenBudget,
  costBudgetUsd: input.budget?.costBudgetUsd !== undefined ? input.budget.costBudgetUsd : config.loop.costBudgetUsd,
  mode: runModeOf(input).enforce ? config.loop.capMode : "none"
})

/** Ids unique in the session, even when an earlier run issued ids it never stored. */
const idsAfter = (sessionId: string, history: ReadonlyArray<Message>) => {
  const taken = new Set(history.map((m) => m.id))
  let idCounter = history.length
  return (prefix: string) => {
    let id = `${sessionId}:${prefix}${idCounter++}`
    while (taken.has(id)) id = `${sessionId}:${prefix}${idCounter++}`
    taken.add(id)
    return id
  }
}

/**
 * A fresh context for a run over the session's stored history. `localTools` builds the in-process
 * tools, given the context they belong to (read when a tool runs).
 */
export const makeRunContext = (
  s: RunServices,
  input: RunInput,
  history: ReadonlyArray<Message>,
  localTools: (context: () => RunContext) => LocalTools = () => ({ specs: [], handlers: new Map() })
): RunContext => {
  const config = s.config
  const mode = runModeOf(input)
  const detectOnly = mode.detectOnly
  const role = input.role ?? config.loop.role
  const local = localTools(() => ctx)
  const step = history.filter((m) => m.role === "assistant" && m.excluded !== "replayed").length
  const rollback = new RollbackGuard(config, role, () => ctx.detectors.loopOpen)
  // Shadow replays (audit) get a detector of their own: a replay must not touch a live session's counters.
  const tryBest = !hostsTryBest(config, detectOnly) ? null : detectOnly || s.tryBest === undefined ? newTryBest(config) : s.tryBest.for(input.sessionId)
  const currentUserId = [...history].reverse().find((m) => m.role === "user" && m.synthetic === undefined)?.id ?? ""
  const ctx: RunContext = {
    input,
    mode,
    role,
    policy: policyOf(config, input),
    state: initRunState({ step, currentUserId, priced: s.price !== null }),
    nextId: idsAfter(input.sessionId, history),
    detectors: new CrossStepDetectors(config, role, detectOnly, s.fallback !== null),
    // Crops stay stored, but switching the feature off restores the full view.
    history: new HistoryView(s.store, input.sessionId, { enforce: mode.shapesRequests, streakCrops: config.loopStreakRecovery.enabled }),
    throttle: new IncidentThrottle(DEFAULT_EPISODE_GAP, detectOnly),
    rollback,
    tryBest,
    monitors: [
      ...(tryBest === null ? [] : tryBestMonitors(config, detectOnly, tryBest)),
      ...rollbackMonitors(rollback, detectOnly)
    ],
    toolSpecs: [...s.tools.specs, ...local.specs],
    localTools: local.handlers
  }
  return ctx
}

/** Who a pause stopped: the session, the agent (its role) and the model it is on now, as `session.try_best.detected` carries them. */
export const pausedWho = (s: RunServices, ctx: RunContext) => ({ sessionId: ctx.input.sessionId, agent: ctx.role, model: activeModelId(s, ctx) })

/** The price of the model the run is on now (the fallback after a reroute). */
export const activePrice = (s: RunServices, ctx: RunContext): ModelPrice | null => (ctx.state.rerouted && s.fallback !== null ? s.fallback.price : s.price)

/** The model the run is on now. */
export const activeLlm = (s: RunServices, ctx: RunContext): LlmShape | undefined => (ctx.state.rerouted && s.fallback !== null ? s.fallback.llm : undefined)

export const activeModelId = (s: RunServices, ctx: RunContext): string => activeLlm(s, ctx)?.modelId ?? s.modelId
