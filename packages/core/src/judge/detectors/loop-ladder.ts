/**
 * The loop ladder (repeated action, cycles, observations, failures, replays, spins) as a step
 * detector: its note replaces the last one; its top rung pauses under Try-Best, else ends the run.
 */
import type { AgentRole } from "../../classify/index.js"
import type { JudgeConfig } from "../judge-config.js"
import { LoopEpisodes } from "../loop-episodes.js"
import type { StepDetector, StepFacts, StepVerdict } from "./step-detector.js"

export class LoopLadderDetector implements StepDetector {
  private readonly loops: LoopEpisodes

  constructor(
    config: JudgeConfig,
    role: AgentRole,
    private readonly pauseOnStop: boolean
  ) {
    this.loops = new LoopEpisodes(config, role)
  }

  push({ messages, step, kept }: StepFacts): StepVerdict {
    const found = this.loops.afterStep(messages, step, kept?.records)
    const stop = found.stop
    return {
      incidents: found.incidents,
      note: found.note,
      ...(found.remind !== null ? { reminders: [{ kind: "loop-remind" as const, text: found.remind }] } : {}),
      ...(stop === null
        ? {}
        : this.pauseOnStop
          ? { pause: stop }
          : { exit: { reason: "idle" as const, error: { tag: "IdleLoopError", message: String(stop["detail"]) } } })
    }
  }
}
