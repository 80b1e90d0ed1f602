/** The proxy's verdict types the turn judge and the verdict share (kept apart so neither imports the other's module). */
import type { AgentRole } from "@loopguard/core/classify"
import type { JudgeConfig } from "@loopguard/core/judge"

export interface VerdictConfig extends JudgeConfig {
  readonly loop: JudgeConfig["loop"] & { readonly role: AgentRole }
  readonly doomLoop: { readonly enabled: boolean; readonly repeats: number }
  readonly proxy: { readonly maxTurnSteps: number | null }
}

export interface StopVerdict {
  readonly detector: string
  /** Which loop, in words. */
  readonly loop: string
  readonly evidence: string
  readonly next: string
}
