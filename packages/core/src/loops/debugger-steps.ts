/**
 * A debugger driven one step at a time (pdb, gdb, lldb: `n`, `step`, `until 30`, `c`): the same
 * command each time, and through a loop its answers come round again, yet each look is on the
 * program's way somewhere. It is stepping on while its newest looks still reach a line the run had
 * not shown; a run that only goes round the same lines (a loop it never leaves) is not.
 */
import type { StepRecord } from "./step-record.js"

/** The skeletons of a debugger's step commands typed as the whole command line (`commandSkeleton`). */
const DEBUGGER_STEPS: ReadonlySet<string> = new Set(
  ["n", "next", "s", "step", "unt", "until", "finish", "c", "cont", "continue", "ni", "si", "nexti", "stepi"].flatMap((c) => [c, `${c} <a>`])
)

/** Does the step only tell a debugger to step on? */
export const stepsDebugger = (r: StepRecord): boolean => DEBUGGER_STEPS.has(r.skeleton)

/**
 * A run of debugger steps whose newest `window` looks reached a line (an answer, masked) that no
 * earlier look of the run showed.
 */
export const steppingOnward = (run: ReadonlyArray<StepRecord>, window: number): boolean => {
  if (run.length === 0 || !run.every(stepsDebugger)) return false
  const cut = Math.max(0, run.length - window)
  const earlier = new Set(run.slice(0, cut).map((r) => r.observation))
  return run.slice(cut).some((r) => !earlier.has(r.observation))
}
