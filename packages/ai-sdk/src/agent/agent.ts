/**
 * `loopguardAgent(options)`: the AI SDK agent helpers over one shared state. Its `stopWhen` ends
 * the loop at the judge's stop rung, its `prepareStep` adds the judge's reminders and note to the
 * next request and leaves cropped replies out, its `onStepEnd` feeds each step as it ends, and
 * `wrap(settings)` puts all three plus the middleware into a `ToolLoopAgent`, `generateText` or
 * `streamText` settings object. `report()` gives the same report as the RunLoop's.
 */
import { experimental_createSteering as createSteering, stepCountIs, wrapLanguageModel, type Experimental_Steering as Steering, type LanguageModel, type LanguageModelMiddleware, type ModelMessage, type PrepareStepFunction, type StopCondition, type ToolSet } from "ai"
import { guardedMiddleware } from "../middleware/middleware.js"
import { GuardedRun, type StepActions } from "./guarded-run.js"
import { resolveAgentOptions, type LoopguardAgentOptions, type ResolvedAgentOptions } from "./options.js"
import { buildAgentReport, type LoopguardAgentReport } from "./agent-report.js"
import { croppedSteps, tagNewestStep, userNote, withoutSteps } from "./request-messages.js"
import type { AnyStep } from "./step-reply.js"
import { promptTokensOf } from "./prompt-tokens.js"

/** The steps a wrapped run takes at most when the caller set no `stopWhen` (the AI SDK's `ToolLoopAgent` default). */
export const DEFAULT_MAX_STEPS = 20

type PrepareInput = Parameters<PrepareStepFunction<ToolSet>>[0]
type PrepareOutput = { messages: Array<ModelMessage> } | undefined

/** The text of the newest user message, for the report's history. */
const lastUserText = (messages: ReadonlyArray<ModelMessage>): string => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role !== "user") continue
    return typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("")
  }
  return ""
}

const acted = (a: StepActions): boolean => a.incidents.length > 0 || a.reminders.length > 0 || a.steer !== null || a.note !== null || a.exit !== null

/** The agent helpers' shared state: one judge per run, fed step by step; see `loopguardAgent`. */
export class LoopguardAgent {
  readonly options: ResolvedAgentOptions
  /** The repetition guard and chunk timeout on every model call (`wrapLanguageModel`). */
  readonly middleware: LanguageModelMiddleware
  private run: GuardedRun | null = null
  private userText = ""
  private readonly notes = new WeakSet<object>()
  private readonly stepTags = new WeakMap<object, number>()
  private steered: Steering | null = null
  /** Steps `prepareStep` saw begin in this run: one that began and never ended threw (its error went to the caller). */
  private stepsBegun = 0
  private callSignal: AbortSignal | undefined
  /** The newest model call's prompt estimate, taken by the step (or failed stream) it answers: a server that sends no usage is billed by estimate. */
  private callPrompt: (() => number) | undefined
  /** The newest model call's provider and model. */
  private callModel: { readonly provider: string; readonly modelId: string } | undefined
  /** The first steps of runs this state left for another while they had steps: one seen again means two runs share it at once. */
  private readonly leftRuns = new WeakSet<object>()
  private sharedWarned = false

  constructor(options: LoopguardAgentOptions = {}) {
    this.options = resolveAgentOptions(options)
    // A stream that fails mid-way ends no step: what it streamed is counted on the run here.
    const guard = guardedMiddleware({ ...this.options.middleware, sessionId: this.options.sessionId }, { onFailed: (usage, ids) => this.run?.spendFailed(usage, ids.modelId, this.takePrompt()) })
    // The caller's abort signal of the newest model call: a run it ended was cancelled, not failed.
    this.middleware = {
      ...guard,
      transformParams: async ({ params, model }) => {
        this.callSignal = params.abortSignal
        this.callPrompt = promptTokensOf(params)
        // Named before the call can fail: a run whose first call fails is still told by its provider and model.
        this.callModel = { provider: model.provider, modelId: model.modelId }
        this.run?.named(model.provider, model.modelId)
        return params
      }
    }
  }

  /** An AI SDK stop condition: true once the judge asked to stop (the loop, a budget, a doom loop…). */
  readonly stopWhen: StopCondition<ToolSet> = ({ steps }) => this.catchUp(steps).exit !== null

  /** An AI SDK `prepareStep`: the judge's reminders and note added, cropped replies left out; nothing when there is nothing to add. */
  readonly prepareStep = (input: PrepareInput): PrepareOutput => {
    if (input.steps.length === 0) this.startRun(lastUserText(input.initialMessages ?? input.messages))
    const run = this.catchUp(input.steps)
    this.stepsBegun = input.steps.length + 1
    if (input.steps.length > 0) tagNewestStep(input.messages, input.steps.length - 1, this.stepTags)
    const cropped = new Set([...croppedSteps(run.messages, run.crops), ...run.cutSteps])
    const { reminders, note } = run.pending
    const hadNote = input.messages.some((m) => this.notes.has(m))
    if (!hadNote && cropped.size === 0 && reminders.length === 0 && note === null) return undefined
    const messages = withoutSteps(input.messages.filter((m) => !this.notes.has(m)), cropped, this.stepTags)
    for (const r of reminders) messages.push(userNote(r.text))
    if (note !== null) {
      const m = userNote(note)
      this.notes.add(m)
      messages.push(m)
    }
    run.pending = { reminders: [], note: null }
    return { messages }
  }

  /** For `onStepEnd`: feeds the step the moment it ends (the loop's own stop condition may not run after the last one). */
  readonly onStepEnd = (step: AnyStep): void => {
    const fresh = this.run === null || (step.stepNumber === 0 && this.run.fed.length > 0 && this.run.fed[0] !== step)
    const run = fresh ? this.startRun(this.userText) : this.run!
    if (step.stepNumber === run.fed.length) this.feed(run, step)
  }

  /**
   * A steering object for one call (`experimental_steering` of `generate`, `stream`, `generateText`
   * or `streamText`): with it, a reply the repetition guard cut is followed by the RunLoop's REMIND,
   * then REPLAN, instead of ending the run (the AI SDK ends a run on a reply without tool calls).
   */
  steering(): Steering {
    this.steered = createSteering()
    return this.steered
  }

  /** The run's report: status, reason, tokens (cut and failed steps included), incidents, the suggested next step. */
  report(): LoopguardAgentReport {
    const run = this.run ?? new GuardedRun(this.options, this.userText)
    if (run.fed.length === 0 && this.callModel !== undefined) run.named(this.callModel.provider, this.callModel.modelId)
    const cancelled = this.callSignal?.aborted === true
    const last = run.fed.at(-1)
    // A run the caller aborted while a step's tools ran ends with that step, its calls made: not the step cap.
    const unfinished =
      run.fed.length < this.stepsBegun
        ? { step: this.stepsBegun - 1, cancelled }
        : cancelled && run.exit === null && last !== undefined && last.toolCalls.length > 0
          ? { step: run.fed.length - 1, cancelled, ended: true }
          : null
    return buildAgentReport(run, this.options, unfinished)
  }

  /**
   * `settings` for a `ToolLoopAgent`, `generateText` or `streamText`, guarded: the model wrapped
   * with the middleware, loopguard's stop condition beside the caller's (beside `stepCountIs(20)`
   * when the caller set none), its `prepareStep` after the caller's, and its `onStepEnd` before the caller's.
   */
  wrap<S extends GuardableSettings>(settings: S): S {
    const own = settings.prepareStep
    const callerEnd = settings.onStepEnd ?? settings.onStepFinish
    // A list of stop conditions replaces the SDK's default cap: without one of the caller's, its
    // ToolLoopAgent default (20 steps) stays, so a loop loopguard does not stop is still bounded.
    const stops = settings.stopWhen === undefined ? [stepCountIs(DEFAULT_MAX_STEPS)] : Array.isArray(settings.stopWhen) ? settings.stopWhen : [settings.stopWhen]
    const { onStepFinish: _replaced, ...rest } = settings
    return {
      ...rest,
      model: typeof settings.model === "string" ? settings.model : wrapLanguageModel({ model: settings.model, middleware: this.middleware }),
      stopWhen: [...stops, this.stopWhen],
      prepareStep: async (input: PrepareInput) => {
        const theirs = own === undefined ? undefined : await own(input)
        const ours = this.prepareStep(theirs?.messages !== undefined ? { ...input, messages: theirs.messages } : input)
        return ours === undefined ? theirs : { ...theirs, ...ours }
      },
      onStepEnd: async (step: AnyStep) => {
        this.onStepEnd(step)
        await callerEnd?.(step)
      }
    } as unknown as S
  }

  private startRun(userText: string): GuardedRun {
    if (this.run !== null && this.run.fed.length > 0) this.leftRuns.add(this.run.fed[0]!)
    this.userText = userText
    this.run = new GuardedRun(this.options, userText)
    return this.run
  }

  /** Feeds the steps not fed yet; a list shorter than what was fed, or with another first step, is a new run. */
  private catchUp(steps: ReadonlyArray<AnyStep>): GuardedRun {
    // The run it is on now may have been started over on the same first step (a shorter list): not another run.
    if (steps.length > 0 && this.leftRuns.has(steps[0]!) && this.run?.fed[0] !== steps[0]) this.warnShared()
    let run = this.run
    if (run === null || steps.length < run.fed.length || (steps.length > 0 && run.fed.length > 0 && steps[0] !== run.fed[0])) run = this.startRun(this.userText)
    for (let i = run.fed.length; i < steps.length; i++) this.feed(run, steps[i]!)
    return run
  }

  /**
   * A run this state had left went on: two runs share one state at once. Each switch judges a run
   * again from its first step, so its events, incidents and reminders repeat and the report mixes the
   * runs. Said once: nothing the AI SDK hands the callbacks tells two runs' first steps apart.
   */
  private warnShared(): void {
    if (this.sharedWarned) return
    this.sharedWarned = true
    console.warn("loopguard: one loopguardAgent is serving two runs at once: each switch between them judges a run again from its first step, so its events, incidents and reminders repeat and its report mixes the runs. Make one loopguardAgent per run (per request).")
  }

  /**
   * Whether this call has a steering object: one made by `steering()` that no earlier generation
   * ended (the AI SDK marks a used one `ended`; an SDK without that mark counts it live).
   */
  private steeringLive(): boolean {
    return this.steered !== null && (this.steered as unknown as { state?: unknown }).state !== "ended"
  }

  /** The newest call's prompt estimate, once: every step is fed before the next call begins, so it is this step's. */
  private takePrompt(): (() => number) | undefined {
    const prompt = this.callPrompt
    this.callPrompt = undefined
    return prompt
  }

  private feed(run: GuardedRun, step: AnyStep): void {
    const actions = run.feed(step, this.steeringLive(), this.takePrompt())
    if (acted(actions)) markStep(step, actions, run.ids.sessionId)
    // Not awaited: it settles when the next step takes the message, after this callback returns.
    if (actions.steer !== null && run.exit === null) void this.steered?.steer(actions.steer.text)
  }
}

/** The settings fields `wrap` touches; the rest pass through untouched. */
export interface GuardableSettings {
  readonly model: LanguageModel
  readonly stopWhen?: StopCondition<any> | Array<StopCondition<any>>
  readonly prepareStep?: (input: any) => any
  readonly onStepEnd?: (step: any) => unknown
  readonly onStepFinish?: (step: any) => unknown
}

/** `providerMetadata.loopguard` on the step loopguard acted on: what it found and what it did. */
const markStep = (step: AnyStep, actions: StepActions, sessionId: string): void => {
  const before = (step.providerMetadata?.["loopguard"] ?? {}) as Record<string, unknown>
  const loopguard = {
    ...before,
    sessionId,
    incidents: actions.incidents.map((i) => ({ detector: i.detector, action: i.action })),
    ...(actions.reminders.length > 0 || actions.steer !== null ? { reminders: [...(actions.steer !== null ? [actions.steer.kind] : []), ...actions.reminders.map((r) => r.kind)] } : {}),
    ...(actions.note !== null ? { note: actions.note } : {}),
    ...(actions.exit !== null ? { stop: { reason: actions.exit.reason, message: actions.exit.error?.message ?? actions.exit.reason } } : {})
  }
  // The AI SDK's step results are plain objects: the result's `steps` show what loopguard did where.
  ;(step as { providerMetadata: unknown }).providerMetadata = { ...step.providerMetadata, loopguard }
}

/** The helpers over one state: `stopWhen`, `prepareStep`, `onStepEnd`, `middleware`, `wrap(settings)` and `report()`. */
export const loopguardAgent = (options: LoopguardAgentOptions = {}): LoopguardAgent => new LoopguardAgent(options)

/** An AI SDK stop condition running the cross-step judge; `.loopguard` holds its state (and `report()`). Pass a `LoopguardAgent` to share one. */
export const loopguardStopWhen = (options: LoopguardAgentOptions | LoopguardAgent = {}): StopCondition<ToolSet> & { readonly loopguard: LoopguardAgent } => {
  const agent = options instanceof LoopguardAgent ? options : new LoopguardAgent(options)
  return Object.assign((input: { steps: Array<AnyStep> }) => agent.stopWhen(input), { loopguard: agent })
}

/** An AI SDK `prepareStep` adding the judge's reminders and note; `.loopguard` holds its state. Pass a `LoopguardAgent` to share one. */
export const loopguardPrepareStep = (options: LoopguardAgentOptions | LoopguardAgent = {}): ((input: PrepareInput) => PrepareOutput) & { readonly loopguard: LoopguardAgent } => {
  const agent = options instanceof LoopguardAgent ? options : new LoopguardAgent(options)
  return Object.assign((input: PrepareInput) => agent.prepareStep(input), { loopguard: agent })
}
