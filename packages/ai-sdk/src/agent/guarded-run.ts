/**
 * One AI SDK run as the cross-step judge sees it: the run's steps fed one at a time (never the
 * whole list again), each turned into a loopguard reply, metered (a step the server sent no usage
 * for, cut or whole, counts its prompt and what it streamed, estimated), and judged by core's
 * `CrossStepDetectors`, the Try-Best edit-repeat monitor and the doom-loop check. What the judge
 * asks for is kept for the hosts: reminders and the note for the next request, crops, and the exit.
 */
import { addSpent, capUsageOf, costOf, initUsageMeter, priceFor, recordStep, spentBudget, streamedUsage, unpricedBudgetMessage, type UsageMeter } from "@loopguard/core/caps"
import { classifyStep, decideRecovery, initRecovery, type RecoveryState } from "@loopguard/core/classify"
import { CrossStepDetectors, tryBestOptionsOf } from "@loopguard/core/judge"
import { doomLoop, StepRecordLog } from "@loopguard/core/loops"
import { toolPartsOf, type AssistantMessage, type CropMarker, type Message, type ReminderKind, type Usage } from "@loopguard/core/model"
import { incidentKind, type Incident, type ExitPoint } from "@loopguard/core/report"
import { TryBestMonitor } from "@loopguard/core/try-best"
import { publishTo, type LoopguardEventIds } from "./events.js"
import type { ResolvedAgentOptions } from "./options.js"
import { replyOfStep, type AnyStep } from "./step-reply.js"

export const USER_ID = "user-0"

/** Why a cut reply with no tool calls ended the run: nothing can carry the REMIND to the model. */
const UNSTEERED_CUT =
  "the repetition guard cut the reply, and the AI SDK ends a run on a reply without tool calls; pass `experimental_steering: guard.steering()` to the call to have the reminder sent and the run go on"

/** What the middleware wrote on a step it cut (`providerMetadata.loopguard`). */
interface CutMetadata {
  readonly tripped?: string
  readonly usage?: { readonly outputTokens: number; readonly estimated: boolean }
}

const cutOf = (step: AnyStep): CutMetadata | null => (step.providerMetadata?.["loopguard"] as CutMetadata | undefined) ?? null

/** An estimated usage without a prompt count, given the prompt's estimate: the server read the prompt whatever it streamed back. */
const withPrompt = (usage: Usage, promptTokens: (() => number) | undefined): Usage => {
  if (usage.estimated !== true || usage.inputTokens !== undefined || promptTokens === undefined) return usage
  const inputTokens = promptTokens()
  return { ...usage, inputTokens, totalTokens: inputTokens + (usage.outputTokens ?? 0) }
}

/**
 * What a step cost, as the RunLoop bills it: the server's count, else core's estimate
 * (`streamedUsage`: the output from what streamed, the prompt from `promptTokens`), whether the
 * step ended whole or was cut. A cut step keeps the middleware's output estimate, which also saw
 * the arguments of a call the cut left unfinished.
 */
const billOf = (built: AssistantMessage, cut: CutMetadata | null, promptTokens: (() => number) | undefined): Usage => {
  const streamed = streamedUsage(built, promptTokens)
  return withPrompt(cut?.usage?.estimated === true ? { ...streamed, estimated: true } : streamed, promptTokens)
}

export interface StepActions {
  readonly incidents: ReadonlyArray<Incident>
  readonly reminders: ReadonlyArray<{ readonly kind: ReminderKind; readonly text: string }>
  /** The REMIND / REPLAN after a cut reply: the AI SDK ends a run on a reply without tool calls, so it goes by steering. */
  readonly steer: { readonly kind: ReminderKind; readonly text: string } | null
  readonly note: string | null
  readonly exit: ExitPoint | null
}

export class GuardedRun {
  readonly messages: Array<Message>
  readonly incidents: Array<Incident> = []
  /** The step objects fed so far, in order (a new run is told by a different first step). */
  readonly fed: Array<AnyStep> = []
  exit: ExitPoint | null = null
  meter: UsageMeter = initUsageMeter()
  /** Reminders and the note waiting for the next request. */
  pending: { reminders: Array<{ kind: ReminderKind; text: string }>; note: string | null } = { reminders: [], note: null }
  readonly crops: Array<CropMarker> = []
  /** Steps whose reply the repetition guard cut: left out of later requests, so the loop is not read back to the model. */
  readonly cutSteps = new Set<number>()
  readonly retries: Record<string, number> = {}
  ids: LoopguardEventIds
  private readonly records = new StepRecordLog()
  private readonly judge: CrossStepDetectors
  private readonly tryBest: TryBestMonitor
  private recovery: RecoveryState = initRecovery()
  /** The cost budget's warning that a model has no price: once per run. */
  private unpricedTold = false
  private readonly publish: ReturnType<typeof publishTo>

  constructor(
    private readonly options: ResolvedAgentOptions,
    userText: string
  ) {
    this.messages = [{ role: "user", id: USER_ID, text: userText }]
    this.judge = new CrossStepDetectors(options.judge, options.role, false)
    this.tryBest = new TryBestMonitor(tryBestOptionsOf(options.judge))
    this.publish = publishTo(options.onEvent)
    this.ids = { sessionId: options.sessionId, provider: "unknown", modelId: "unknown" }
  }

  /** The provider and model of the call under way (until a step names its own). */
  named(provider: string, modelId: string): void {
    this.ids = { sessionId: this.options.sessionId, provider, modelId }
  }

  /**
   * Judges the run's next step; returns what was asked, and marks the step when loopguard acted on it.
   * `steerable`: the call has a steering object, so a cut reply without tool calls can be followed by
   * a reminder instead of ending the run. `promptTokens`: the step's prompt estimated (the middleware
   * saw it), billed when the server sent no usage.
   */
  feed(step: AnyStep, steerable: boolean, promptTokens?: () => number): StepActions {
    const index = this.fed.length
    this.fed.push(step)
    this.ids = { sessionId: this.options.sessionId, provider: step.model.provider, modelId: step.model.modelId }
    const cut = cutOf(step)
    const built = replyOfStep(step, index, USER_ID)
    const usage = billOf(built, cut, promptTokens)
    const estimated = usage.estimated === true
    const reply: AssistantMessage = { ...built, usage }
    this.messages.push(reply)
    this.records.push(reply)
    this.meter = recordStep(this.meter, usage, this.priceOf(reply.model ?? ""))
    this.publish({ type: "step.finished", step: index, finish: step.finishReason, tokens: { input: usage.inputTokens ?? 0, output: usage.outputTokens ?? 0, estimated }, ...this.ids })
    const actions = this.judgeStep(reply, cut, steerable)
    this.apply(index, actions)
    return actions
  }

  /**
   * What a call whose stream failed mid-way streamed (a reset), and its prompt: the provider billed
   * both, and the step never ends, so they are counted here, not as a step.
   */
  spendFailed(usage: { readonly outputTokens: number; readonly estimated: boolean }, modelId: string, promptTokens?: () => number): void {
    this.meter = addSpent(this.meter, withPrompt({ outputTokens: usage.outputTokens, estimated: usage.estimated }, promptTokens), this.priceOf(modelId))
  }

  private priceOf(modelId: string) {
    return priceFor(modelId, this.options.prices)
  }

  private judgeStep(reply: AssistantMessage, cut: CutMetadata | null, steerable: boolean): StepActions {
    const step = reply.step
    const incidents: Array<Incident> = []
    const reminders: Array<{ kind: ReminderKind; text: string }> = []
    let exit: ExitPoint | null = null
    let steer: StepActions["steer"] = null
    this.unpricedBudget(reply, incidents)
    if (cut?.tripped === "text-repeat") {
      incidents.push({ step, detector: "text-repeat", action: "cut", detail: { ...cut } })
      this.cutSteps.add(step)
      const decided = this.textRepeatRecovery(reply)
      if (decided.type === "exit") exit = decided.exit
      // Tool calls keep the loop going: the reminder rides on the next request.
      else if (toolPartsOf(reply).length > 0) reminders.push({ kind: decided.kind, text: decided.text })
      else if (steerable) steer = { kind: decided.kind, text: decided.text }
      else exit = { reason: "text_repeat", step, error: { tag: "TextRepeatError", message: UNSTEERED_CUT } }
    }
    exit ??= this.doomLoop(reply, incidents)
    exit ??= this.editRepeat(reply, incidents)
    // The step's own cost, as the RunLoop gives it (null when the model's price is unknown).
    const price = this.priceOf(reply.model ?? "")
    const costUsd = price === null ? null : costOf(reply.usage ?? {}, price)
    const after = this.judge.afterStep(this.messages, reply, step, { final: toolPartsOf(reply).length === 0, costUsd }, { records: this.records, crops: this.crops, newestUserAt: 0 })
    incidents.push(...after.incidents)
    if (after.crop !== null) this.crops.push(after.crop.marker)
    reminders.push(...after.reminders)
    if (after.exit !== null) exit ??= { reason: after.exit.reason, step, error: after.exit.error }
    if (after.pause !== null) exit ??= { reason: "try_best_paused", step, error: { tag: "TryBestPause", message: String(after.pause["detail"] ?? after.pause["kind"] ?? "paused") } }
    exit ??= this.budget(step)
    return { incidents, reminders, steer, note: this.judge.takeNote(), exit }
  }

  /** A cost budget with no price for the step's model can never trip: said once per run, as the RunLoop says it. */
  private unpricedBudget(reply: AssistantMessage, incidents: Array<Incident>): void {
    const costBudgetUsd = this.options.budgets.costBudgetUsd
    if (this.unpricedTold || costBudgetUsd === null || this.priceOf(reply.model ?? "") !== null) return
    this.unpricedTold = true
    const message = unpricedBudgetMessage(reply.model ?? "(unknown)", costBudgetUsd, "pass its price in the `prices` option")
    incidents.push({ step: reply.step, detector: "budget", action: "warn", detail: { reason: "budget_cost", message } })
  }

  /** REMIND, then REPLAN, then the exit: the RunLoop's recovery for a reply the repetition guard cut. */
  private textRepeatRecovery(reply: AssistantMessage): { type: "remind"; kind: ReminderKind; text: string } | { type: "exit"; exit: ExitPoint } {
    const classification = classifyStep({ reply, currentUserId: USER_ID })
    const decision = decideRecovery(this.recovery, { classification, pendingClientTool: false, outcome: "text-repeat", structuredOutput: false, role: this.options.role })
    this.recovery = decision.state
    const action = decision.action
    if (action.type === "remind") return { type: "remind", kind: action.kind, text: action.text }
    const error = action.type === "exit" ? action.error : undefined
    return { type: "exit", exit: { reason: action.type === "exit" ? action.reason : "text_repeat", step: reply.step, ...(error !== undefined ? { error } : {}) } }
  }

  /** The same call repeated within one reply (the doom loop, docs/loops.md): an agent helper has nobody to ask, so it stops. */
  private doomLoop(reply: AssistantMessage, incidents: Array<Incident>): ExitPoint | null {
    const judge = this.options.judge.doomLoop
    if (!judge.enabled) return null
    const loop = doomLoop(reply, { repeats: judge.repeats })
    if (loop === null) return null
    incidents.push({ step: reply.step, detector: "doom-loop", action: "stop", detail: { tool: loop.tool } })
    return { reason: "doom_loop", step: reply.step, error: { tag: "DoomLoopError", message: `${judge.repeats} identical ${loop.tool} calls in one reply` } }
  }

  /** Try-Best (edit repeat, bash retry, action streak) on the step's finished calls: reported always, a pause when `tryBest.enabled`. */
  private editRepeat(reply: AssistantMessage, incidents: Array<Incident>): ExitPoint | null {
    const enabled = this.options.judge.tryBest.enabled
    for (const part of toolPartsOf(reply)) {
      const found = this.tryBest.consume({ part, step: reply.step })
      if (found === null) continue
      this.tryBest.reset()
      incidents.push({ step: reply.step, detector: found.kind.replace(/_/g, "-"), action: enabled ? "pause" : "detect", detail: { ...found } })
      if (enabled) return { reason: "try_best_paused", step: reply.step, error: { tag: "TryBestPause", message: found.detail } }
    }
    return null
  }

  private budget(step: number): ExitPoint | null {
    const spent = spentBudget({ mode: "none", maxSteps: Number.MAX_SAFE_INTEGER, toolTimeoutMs: 0, stepTimeoutMs: null, ...this.options.budgets }, capUsageOf(this.meter))
    if (spent === null) return null
    const used = spent === "budget_tokens" ? `${this.meter.tokens.total} tokens${this.meter.tokens.estimated === true ? " (some estimated)" : ""} of ${this.options.budgets.tokenBudget}` : `$${this.meter.costUsd} of $${this.options.budgets.costBudgetUsd}`
    return { reason: spent, step, error: { tag: "BudgetError", message: `budget spent: ${used}` } }
  }

  /** Files the step's findings, queues its reminders and note, and publishes what was done. */
  private apply(step: number, actions: StepActions): void {
    for (const i of actions.incidents) {
      this.incidents.push(i)
      this.publish({ type: "incident", step: i.step, detector: i.detector, action: i.action, kind: incidentKind(i.detector, i.action), ...(i.detail !== undefined ? { detail: i.detail } : {}), ...this.ids })
    }
    if (actions.exit !== null) {
      if (this.exit !== null) return
      this.exit = actions.exit
      this.publish({ type: "stop", step, reason: actions.exit.reason, message: actions.exit.error?.message ?? actions.exit.reason, ...this.ids })
      return
    }
    for (const r of [...(actions.steer !== null ? [actions.steer] : []), ...actions.reminders]) {
      this.retries[r.kind] = (this.retries[r.kind] ?? 0) + 1
      // Stored in the judge's history as the RunLoop stores its reminders: a synthetic user turn.
      this.messages.push({ role: "user", id: `reminder-${step}-${this.retries[r.kind]}`, text: r.text, synthetic: r.kind })
      if (r !== actions.steer) this.pending.reminders.push(r)
      this.publish({ type: "reminder", step, kind: r.kind, text: r.text, ...this.ids })
    }
    this.pending.note = actions.note
    if (actions.note !== null) this.publish({ type: "reminder", step, kind: "note", text: actions.note, ...this.ids })
  }
}
