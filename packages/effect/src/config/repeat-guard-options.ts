/** The `repeat` config section as the options of core's RepeatGuard (both in-stream rules). */
import type { RepeatGuardOptions } from "@loopguard/core/repeat"
import type { LoopguardConfig } from "./schema.js"

/** RepeatGuard options (both rules) from the `repeat` config section. */
export const repeatGuardOptionsOf = (repeat: LoopguardConfig["repeat"]): RepeatGuardOptions => ({
  window: repeat.window,
  threshold: repeat.threshold,
  minBlock: repeat.minBlock,
  minDistinct: repeat.minDistinct,
  long: { ...repeat.long }
})
