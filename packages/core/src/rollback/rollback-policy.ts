/**
 * The rollback policy (docs/rollback.md, after MiroThinker). A rollback pops the last assistant reply (the
 * RunLoop marks it `excluded: "rollback"`, so it stays in the store but leaves the model's
 * context), does not spend a turn, and bumps `consecutiveRollbacks`.
 *
 * The cap counts bad turns in a row. With `maxConsecutiveRollbacks` = N, a trigger is rolled back
 * while fewer than N − 1 rollbacks precede it; the N-th consecutive trigger meets the cap (as in
 * MiroThinker's `consecutive_rollbacks < MAX - 1` guard), so at most N − 1 replies are popped in
 * a row. At the cap the trigger kind decides (`atCap`): a format leak or a refusal means the
 * model is lost → end the loop (`rollback_cap`); a duplicate query or a useless result is merely
 * wasteful → let it run (the result goes to the model as it is). The loop-start check
 * (`consecutiveRollbacks >= N` → end) is the backstop for a state restored from elsewhere or a
 * cap lowered mid-run; the policy itself never counts that far.
 *
 * Any fully successful turn resets the count (`onSuccessfulTurn`): the cap guards against being
 * stuck on one obstacle, not against many rollbacks over a long run. State is plain JSON.
 */
import type { RollbackTrigger, RollbackTriggerKind } from "./triggers.js"

export type RollbackState = { readonly consecutiveRollbacks: number }

export type AtCapAction = "end-loop" | "let-run"

export interface RollbackOptions {
  /** Values below 1 count as 1 (every trigger is at the cap: rollback disabled). */
  readonly maxConsecutiveRollbacks: number
  readonly atCap: Readonly<Record<RollbackTriggerKind, AtCapAction>>
}

export const DEFAULT_ROLLBACK_OPTIONS: RollbackOptions = {
  maxConsecutiveRollbacks: 5,
  atCap: { "format-leak": "end-loop", refusal: "end-loop", "duplicate-query": "let-run", "useless-result": "let-run" }
}

export type RollbackDecision =
  | { readonly action: "rollback"; readonly state: RollbackState; readonly trigger: RollbackTrigger; readonly exclude: "rollback" }
  | { readonly action: "end-loop"; readonly state: RollbackState; readonly trigger: RollbackTrigger; readonly reason: "rollback_cap" }
  | { readonly action: "let-run"; readonly state: RollbackState; readonly trigger: RollbackTrigger }

export type LoopStartCheck = { readonly action: "continue" } | { readonly action: "end-loop"; readonly reason: "rollback_cap" }

/** Rollback state before the first step: no consecutive rollbacks. */
export const initRollback = (): RollbackState => ({ consecutiveRollbacks: 0 })

const resolve = (options: Partial<RollbackOptions>): RollbackOptions => {
  const o = { ...DEFAULT_ROLLBACK_OPTIONS, ...options }
  const max = Number.isFinite(o.maxConsecutiveRollbacks) ? Math.max(1, Math.floor(o.maxConsecutiveRollbacks)) : 1
  return { maxConsecutiveRollbacks: max, atCap: { ...DEFAULT_ROLLBACK_OPTIONS.atCap, ...o.atCap } }
}

/** Ends the loop once the consecutive-rollback cap is reached, else lets the step run. */
export const checkAtLoopStart = (state: RollbackState, options: Partial<RollbackOptions> = {}): LoopStartCheck =>
  state.consecutiveRollbacks >= resolve(options).maxConsecutiveRollbacks ? { action: "end-loop", reason: "rollback_cap" } : { action: "continue" }

/** Whether a finished reply is rolled back (excluded and retried) for a trigger, with the state after. */
export const decideRollback = (
  state: RollbackState,
  trigger: RollbackTrigger,
  options: Partial<RollbackOptions> = {}
): RollbackDecision => {
  const o = resolve(options)
  if (state.consecutiveRollbacks < o.maxConsecutiveRollbacks - 1) {
    return { action: "rollback", state: { consecutiveRollbacks: state.consecutiveRollbacks + 1 }, trigger, exclude: "rollback" }
  }
  return o.atCap[trigger.kind] === "end-loop"
    ? { action: "end-loop", state, trigger, reason: "rollback_cap" }
    : { action: "let-run", state, trigger }
}

/** A turn whose calls ran with no trigger (or a final answer): the obstacle is behind us. */
export const onSuccessfulTurn = (_state: RollbackState): RollbackState => initRollback()
