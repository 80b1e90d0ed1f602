/**
 * Stall signals (docs/try-best.md): slow-burning signs that a session has stopped getting
 * anywhere, which the three Try-Best rules do not see. Each is a small rule with its own
 * switch and threshold; `StallMonitor` feeds them one summary per finished step.
 *
 * - no file change: `steps` steps in a row changed no file. Fires at the threshold, then the
 *   count restarts, so it fires again after as many more idle steps.
 * - compactions: the `limit`-th context compaction of the session, and every one after it.
 * - cost: the session's cost (sum of the steps' `costUsd`) reached `fraction` of `budgetUsd`.
 *   Only when a budget is set; fires once.
 * - artefact missing: on a step where the model says it is done (`final`), a required glob is
 *   matched neither by a path the session changed nor, for a glob without wildcards, by
 *   `exists(path)`. Fires on every such final step.
 * - spend flat: the last `window` steps spent more than `minTokens` tokens together and none of
 *   them improved a verification result. The window then starts over.
 *
 * `tokens` and `costUsd` in a summary are what that step spent, not running totals.
 */
import { hasWildcard, matchGlob } from "./glob.js"
import { normalizePath } from "./normalize.js"

export interface StepSummary {
  readonly step: number
  /** Files this step changed (edits, writes, deletions), as the caller spells them. */
  readonly changedFiles: ReadonlyArray<string>
  /**
   * A shell command of this step wrote files whose paths are not known (`sed -i`, `cat > f << EOF`,
   * `cp`): a change for "no file change" and "spend flat", but no path for the artefact rule.
   */
  readonly wroteFiles?: boolean
  /** Tokens this step used (input + output). */
  readonly tokens: number
  /** Cost of this step in USD, when known. */
  readonly costUsd?: number
  /** A verification run in this step did better than before (passed, or fewer failures). */
  readonly verificationImproved: boolean
  /**
   * A verification command ran in this step, whatever its result. When the caller says (defined),
   * "spend flat" needs `MIN_FLAT_VERIFICATIONS` runs in its window: results that stay flat must
   * have been measured; exploring without running anything is not evidence of a stall.
   */
  readonly verificationRan?: boolean
  /** The context was compacted during or after this step. */
  readonly compaction?: boolean
  /** The model says it is done (a final reply). */
  readonly final?: boolean
}

export type StallKind =
  | "stall-no-file-change"
  | "stall-compactions"
  | "stall-cost"
  | "stall-artefact-missing"
  | "stall-spend-flat"

export interface StallIncident {
  readonly kind: StallKind
  readonly step: number
  readonly detail: string
}

export interface StallOptions {
  readonly noFileChange: { readonly enabled: boolean; readonly steps: number }
  readonly compactions: { readonly enabled: boolean; readonly limit: number }
  readonly cost: { readonly enabled: boolean; readonly fraction: number; readonly budgetUsd?: number }
  readonly artefacts: {
    readonly enabled: boolean
    /** Globs (`*`, `?`, `**`) of files that must exist when the model says it is done. */
    readonly required: ReadonlyArray<string>
    /** Stripped from changed paths that start with it, so absolute paths meet relative globs. */
    readonly root?: string
  }
  readonly spendFlat: { readonly enabled: boolean; readonly window: number; readonly minTokens: number }
}

export const DEFAULT_STALL_OPTIONS: StallOptions = {
  noFileChange: { enabled: true, steps: 30 },
  compactions: { enabled: true, limit: 5 },
  cost: { enabled: true, fraction: 0.8 },
  artefacts: { enabled: true, required: [] },
  spendFlat: { enabled: true, window: 10, minTokens: 0 }
}

/** Per-rule overrides merged field by field over the defaults. */
export type StallOptionsInput = { readonly [K in keyof StallOptions]?: Partial<StallOptions[K]> }

/** Stall options: the defaults with the given fields replaced, rule by rule. */
export const resolveStallOptions = (input?: StallOptionsInput): StallOptions => ({
  noFileChange: { ...DEFAULT_STALL_OPTIONS.noFileChange, ...input?.noFileChange },
  compactions: { ...DEFAULT_STALL_OPTIONS.compactions, ...input?.compactions },
  cost: { ...DEFAULT_STALL_OPTIONS.cost, ...input?.cost },
  artefacts: { ...DEFAULT_STALL_OPTIONS.artefacts, ...input?.artefacts },
  spendFlat: { ...DEFAULT_STALL_OPTIONS.spendFlat, ...input?.spendFlat }
})

export interface StallState {
  readonly stepsWithoutChange: number
  readonly compactions: number
  readonly costUsd: number
  readonly costReported: boolean
  /** Every path the session changed, normalized, sorted. */
  readonly changed: ReadonlyArray<string>
  /** Tokens of the steps since the last verification improvement or file change (at most the current window). */
  readonly flatTokens: ReadonlyArray<number>
  /**
   * Warnings given since the last progress, per signal. Each one doubles the stretch the next
   * needs (10, 20, 40 … steps), so a long stall warns a few times, not every window.
   */
  readonly noFileChangeWarnings?: number
  readonly spendFlatWarnings?: number
  /** Steps of the current flat window that ran a verification (only counted when callers say). */
  readonly flatVerifications?: ReadonlyArray<boolean>
}

/** Verification runs a flat-spend window must hold when runs are reported. */
export const MIN_FLAT_VERIFICATIONS = 2

/** The stretch a signal needs after `warnings` warnings without progress: base, 2×, 4× … */
const backedOff = (base: number, warnings: number | undefined): number => base * 2 ** Math.min(warnings ?? 0, 20)

/** Stall state before the first step. */
export const initStall = (): StallState => ({
  stepsWithoutChange: 0,
  compactions: 0,
  costUsd: 0,
  costReported: false,
  changed: [],
  flatTokens: []
})

/** Does a file exist in the workspace? Injected: core does no I/O. */
export type Exists = (path: string) => boolean

interface RuleResult {
  readonly state: StallState
  readonly incident: StallIncident | null
}
type Rule = (state: StallState, s: StepSummary, o: StallOptions, exists: Exists | undefined) => RuleResult

const fmtUsd = (x: number): string => `$${x.toFixed(2)}`

/** Stall rule: too many steps in a row without a file change. */
export const noFileChangeRule: Rule = (state, s, o) => {
  if (s.changedFiles.length > 0 || s.wroteFiles === true) return { state: { ...state, stepsWithoutChange: 0, noFileChangeWarnings: 0 }, incident: null }
  const idle = state.stepsWithoutChange + 1
  if (!o.noFileChange.enabled || idle < backedOff(o.noFileChange.steps, state.noFileChangeWarnings)) return { state: { ...state, stepsWithoutChange: idle }, incident: null }
  return {
    state: { ...state, stepsWithoutChange: 0, noFileChangeWarnings: (state.noFileChangeWarnings ?? 0) + 1 },
    incident: { kind: "stall-no-file-change", step: s.step, detail: `stall: no file changed in the last ${idle} steps.` }
  }
}

/** Stall rule: too many context compactions. */
export const compactionsRule: Rule = (state, s, o) => {
  if (s.compaction !== true) return { state, incident: null }
  const count = state.compactions + 1
  const next = { ...state, compactions: count }
  if (!o.compactions.enabled || count < o.compactions.limit) return { state: next, incident: null }
  return {
    state: next,
    incident: {
      kind: "stall-compactions",
      step: s.step,
      detail: `stall: the context has been compacted ${count} times in this session (limit ${o.compactions.limit}).`
    }
  }
}

/** Stall rule: spend past the cost limit. */
export const costRule: Rule = (state, s, o) => {
  const spent = state.costUsd + (typeof s.costUsd === "number" && Number.isFinite(s.costUsd) ? s.costUsd : 0)
  const next = { ...state, costUsd: spent }
  const budget = o.cost.budgetUsd
  if (!o.cost.enabled || budget === undefined || budget <= 0 || state.costReported) return { state: next, incident: null }
  if (spent < o.cost.fraction * budget) return { state: next, incident: null }
  return {
    state: { ...next, costReported: true },
    incident: {
      kind: "stall-cost",
      step: s.step,
      detail: `stall: cost ${fmtUsd(spent)} has reached ${Math.round((spent / budget) * 100)}% of the ${fmtUsd(budget)} budget.`
    }
  }
}

const relative = (path: string, root: string | undefined): string => {
  const p = normalizePath(path)
  if (root === undefined || root === "") return p
  const r = normalizePath(root).replace(/\/$/, "")
  return p.startsWith(`${r}/`) ? p.slice(r.length + 1) : p
}

/** Stall rule: a reply says the work is done while required artefacts (globs) are still missing. */
export const artefactRule: Rule = (state, s, o, exists) => {
  const added = s.changedFiles.map((p) => relative(p, o.artefacts.root)).filter((p) => !state.changed.includes(p))
  const changed = added.length === 0 ? state.changed : [...new Set([...state.changed, ...added])].sort()
  const next = { ...state, changed }
  if (!o.artefacts.enabled || s.final !== true || o.artefacts.required.length === 0) return { state: next, incident: null }
  const missing = o.artefacts.required.filter((glob) => {
    if (changed.some((p) => matchGlob(glob, p))) return false
    return hasWildcard(glob) || exists === undefined || !exists(normalizePath(glob))
  })
  if (missing.length === 0) return { state: next, incident: null }
  return {
    state: next,
    incident: {
      kind: "stall-artefact-missing",
      step: s.step,
      detail: `stall: the reply says the work is done but required artefacts are missing: ${missing.join(", ")}.`
    }
  }
}

/** Stall rule: tokens keep being spent while verification does not improve. */
export const spendFlatRule: Rule = (state, s, o) => {
  // Real evidence only: tokens spent while neither a verification improved nor a file changed.
  if (s.verificationImproved || s.changedFiles.length > 0 || s.wroteFiles === true) return { state: { ...state, flatTokens: [], flatVerifications: [], spendFlatWarnings: 0 }, incident: null }
  const tokens = Number.isFinite(s.tokens) && s.tokens > 0 ? s.tokens : 0
  const window = backedOff(Math.max(1, o.spendFlat.window), state.spendFlatWarnings)
  const flat = [...state.flatTokens, tokens].slice(-window)
  const ran = s.verificationRan === undefined ? undefined : [...(state.flatVerifications ?? []), s.verificationRan].slice(-window)
  const measured = ran === undefined || ran.filter(Boolean).length >= MIN_FLAT_VERIFICATIONS
  const total = flat.reduce((a, b) => a + b, 0)
  if (!o.spendFlat.enabled || flat.length < window || total <= o.spendFlat.minTokens || !measured)
    return { state: { ...state, flatTokens: flat, ...(ran ? { flatVerifications: ran } : {}) }, incident: null }
  return {
    state: { ...state, flatTokens: [], flatVerifications: [], spendFlatWarnings: (state.spendFlatWarnings ?? 0) + 1 },
    incident: {
      kind: "stall-spend-flat",
      step: s.step,
      detail: `stall: ${total} tokens spent over the last ${window} steps while no verification improved.`
    }
  }
}

const RULES: ReadonlyArray<Rule> = [noFileChangeRule, compactionsRule, costRule, artefactRule, spendFlatRule]

/** Pure step: every rule sees the summary; the incidents come in the order listed above. */
export const consumeStall = (
  state: StallState,
  summary: StepSummary,
  options: StallOptions = DEFAULT_STALL_OPTIONS,
  exists?: Exists
): { readonly state: StallState; readonly incidents: ReadonlyArray<StallIncident> } => {
  let current = state
  const incidents: Array<StallIncident> = []
  for (const rule of RULES) {
    const r = rule(current, summary, options, exists)
    current = r.state
    if (r.incident !== null) incidents.push(r.incident)
  }
  return { state: current, incidents }
}

/** Runs every stall rule over each step's signals and reports the incidents. */
export class StallMonitor {
  readonly options: StallOptions
  private current: StallState
  private readonly exists: Exists | undefined

  constructor(options?: StallOptionsInput, deps?: { readonly exists?: Exists }, state: StallState = initStall()) {
    this.options = resolveStallOptions(options)
    this.exists = deps?.exists
    this.current = state
  }

  consume(summary: StepSummary): ReadonlyArray<StallIncident> {
    const r = consumeStall(this.current, summary, this.options, this.exists)
    this.current = r.state
    return r.incidents
  }

  reset(): void {
    this.current = initStall()
  }

  get state(): StallState {
    return this.current
  }
}
