/**
 * Options of the AI SDK agent helpers: the cross-step judge's config sections (the same names and
 * fields as the loopguard config file), the run's budgets, the middleware's `repeat` / `stream`
 * sections, a session id and an event callback. Checked once, without Effect, when the helpers
 * are made; a bad field throws one error naming every problem by its path.
 */
import type { AgentRole } from "@loopguard/core/classify"
import { DEFAULT_JUDGE_CONFIG, ladderProblem, type JudgeConfig } from "@loopguard/core/judge"
import type { ModelPrice, PriceTable } from "@loopguard/core/caps"
import { checkPatch, checkPriceTable, renameSnakeCaseKeys, type NumberRule, type NumberRules } from "@loopguard/core/settings"
import { resolveMiddlewareOptions, type LoopguardMiddlewareOptions, type ResolvedMiddlewareOptions } from "../middleware/options.js"
import type { LoopguardAgentEvent } from "./events.js"

/** Every field optional, one level of nested sections included. */
type SectionPatch<T> = { readonly [K in keyof T]?: T[K] extends object ? Partial<T[K]> : T[K] }

/** The judge's sections, each patchable field by field (`loop` is the run's budgets, below). */
export type JudgeSections = { readonly [K in Exclude<keyof JudgeConfig, "loop">]?: SectionPatch<JudgeConfig[K]> }

/** The run's budgets (config `loop.tokenBudget`, `loop.costBudgetUsd`); null = none. */
export interface AgentBudgets {
  readonly tokenBudget: number | null
  readonly costBudgetUsd: number | null
}

export interface LoopguardAgentOptions extends JudgeSections, Omit<LoopguardMiddlewareOptions, "sessionId"> {
  /** Names the run on every event and in the report (`savedAt`); default: a random UUID per helper. */
  readonly sessionId?: string
  /** The reminders' wording (config `loop.role`): `main` (default), `subagent` or `checkpoint`. */
  readonly role?: AgentRole
  /** Budgets of one run: tokens include what a cut or failed step streamed. */
  readonly loop?: Partial<AgentBudgets>
  /** USD per million tokens by model id (config `prices`), over the built-in list prices: a cost budget needs the model's price. */
  readonly prices?: Readonly<Record<string, ModelPrice>>
  /** Told every incident, reminder and stop, with the session, provider and model ids. Errors it throws are ignored. */
  readonly onEvent?: (event: LoopguardAgentEvent) => void
}

export interface ResolvedAgentOptions {
  readonly sessionId: string
  readonly role: AgentRole
  readonly judge: JudgeConfig
  readonly budgets: AgentBudgets
  readonly prices: PriceTable
  readonly middleware: ResolvedMiddlewareOptions
  readonly onEvent: (event: LoopguardAgentEvent) => void
}

/** A bad option, named by its path: thrown by the helper that was given it, never mid-run. */
export class LoopguardAgentOptionsError extends Error {
  override readonly name = "LoopguardAgentOptionsError"
  readonly errors: ReadonlyArray<string>
  constructor(errors: ReadonlyArray<string>) {
    super(`invalid loopguard agent options: ${errors.join("; ")}`)
    this.errors = errors
  }
}

const TOP_LEVEL = new Set(["sessionId", "role", "loop", "prices", "onEvent", "repeat", "stream", "onTrip"])
const ROLES: ReadonlyArray<AgentRole> = ["main", "subagent", "checkpoint"]
const RATIO: NumberRule = { atLeast: 0, atMost: 1 }
/** Fractions and "no limit" fields among the judge's; every other number is a non-negative count or limit. */
const JUDGE_RULES: Partial<Record<keyof JudgeConfig, NumberRules>> = {
  repeatedAction: { stopAt: { atLeast: 1, int: true, nullable: true } },
  tryBest: { editSimilarity: RATIO },
  stall: { costRatio: RATIO },
  breaker: { failureRate: RATIO }
}
const BUDGET_RULES: NumberRules = { tokenBudget: { int: true, greaterThan: 0, nullable: true }, costBudgetUsd: { greaterThan: 0, nullable: true } }

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

/** The judge's config: its defaults with each given section laid over them. */
const judgeOf = (options: Record<string, unknown>, errors: Array<string>, budgets: AgentBudgets): JudgeConfig => {
  const out: Record<string, unknown> = { ...DEFAULT_JUDGE_CONFIG, loop: { costBudgetUsd: budgets.costBudgetUsd } }
  for (const [key, value] of Object.entries(options)) {
    if (TOP_LEVEL.has(key)) continue
    if (!(key in DEFAULT_JUDGE_CONFIG) || key === "loop") {
      errors.push(`${key}: Expected no excess property`)
      continue
    }
    const section = key as keyof JudgeConfig
    const checked = checkPatch(DEFAULT_JUDGE_CONFIG[section], value, key, JUDGE_RULES[section] ?? {})
    errors.push(...checked.errors)
    out[key] = checked.value
  }
  return out as unknown as JudgeConfig
}

const middlewareOf = (options: LoopguardAgentOptions, errors: Array<string>): ResolvedMiddlewareOptions | null => {
  try {
    return resolveMiddlewareOptions({ ...(options.repeat !== undefined ? { repeat: options.repeat } : {}), ...(options.stream !== undefined ? { stream: options.stream } : {}), ...(options.onTrip !== undefined ? { onTrip: options.onTrip } : {}) })
  } catch (e) {
    errors.push(...((e as { errors?: ReadonlyArray<string> }).errors ?? [String(e)]))
    return null
  }
}

/** Sections and fields spelled in snake_case before the camelCase names: read for one release, with a warning each. */
const renameOldKeys = (options: LoopguardAgentOptions): LoopguardAgentOptions => {
  const { value, renamed } = renameSnakeCaseKeys(options, DEFAULT_JUDGE_CONFIG)
  for (const r of renamed) {
    console.warn(`loopguard: option ${r.from.join(".")} is deprecated, use ${r.to.join(".")} (the snake_case name is accepted for one release)`)
  }
  return value as LoopguardAgentOptions
}

/** Defaults filled in section by section, then checked; throws LoopguardAgentOptionsError. */
export const resolveAgentOptions = (given: LoopguardAgentOptions = {}): ResolvedAgentOptions => {
  if (!isPlainObject(given as unknown)) throw new LoopguardAgentOptionsError(["options must be an object"])
  const options = renameOldKeys(given)
  const errors: Array<string> = []
  const budgets = checkPatch<AgentBudgets>({ tokenBudget: null, costBudgetUsd: null }, options.loop, "loop", BUDGET_RULES)
  errors.push(...budgets.errors)
  const judge = judgeOf(options as Record<string, unknown>, errors, budgets.value)
  const prices = checkPriceTable(options.prices, "prices")
  errors.push(...prices.errors)
  const ladder = ladderProblem(judge.repeatedAction)
  if (ladder !== null) errors.push(`repeatedAction: ${ladder}`)
  const middleware = middlewareOf(options, errors)
  if (options.sessionId !== undefined && (typeof options.sessionId !== "string" || options.sessionId === "")) errors.push("sessionId: must be a non-empty string")
  if (options.role !== undefined && !ROLES.includes(options.role)) errors.push(`role: must be one of ${ROLES.join(", ")}`)
  if (options.onEvent !== undefined && typeof options.onEvent !== "function") errors.push("onEvent: must be a function")
  if (errors.length > 0 || middleware === null) throw new LoopguardAgentOptionsError(errors)
  return {
    sessionId: options.sessionId ?? crypto.randomUUID(),
    role: options.role ?? "main",
    judge,
    budgets: budgets.value,
    prices: prices.value,
    middleware,
    onEvent: options.onEvent ?? (() => {})
  }
}
