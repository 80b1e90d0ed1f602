/** The caps asked before each step (docs/run-loop.md): stop, a soft-cap last step, or the one summary request. */
import { judgeCaps, type StepCap } from "@loopguard/core/step"
import { Effect } from "effect"
import { judge } from "../interpret.js"
import type { Flow, RunContext, RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export { CAP_DETECTOR, type StepCap } from "@loopguard/core/step"

export const checkCaps = (s: RunServices, ctx: RunContext): Effect.Effect<{ readonly flow: Flow; readonly cap: StepCap }, SessionStoreError> =>
  Effect.map(judge(s, ctx, (state) => judgeCaps(state, ctx.policy)), ({ flow, judged }) => ({ flow, cap: judged.cap }))
