/**
 * The reasoning-loop crop as a step detector: finds a streak of near-identical replies and asks
 * to persist a crop marker. Shadow mode stores nothing, so its would-be crops live here and only
 * steer detection.
 */
import { detectStreak, persistedCrops } from "../../loops/index.js"
import type { CropMarker } from "../../model/index.js"
import type { Incident } from "../../report/index.js"
import type { JudgeConfig } from "../judge-config.js"
import type { CropRequest, StepDetector, StepFacts, StepVerdict } from "./step-detector.js"

export class StreakCropDetector implements StepDetector {
  private readonly shadowCrops: Array<CropMarker> = []

  constructor(
    private readonly config: JudgeConfig["loopStreakRecovery"],
    private readonly shadow: boolean
  ) {}

  push({ messages, step, kept }: StepFacts): StepVerdict {
    // Markers are applied all at once, so the would-be ones can simply follow the stored ones.
    const stored = kept?.crops ?? persistedCrops(messages)
    const crops = this.shadowCrops.length === 0 ? stored : [...stored, ...this.shadowCrops]
    const streak = detectStreak(
      messages,
      { enabled: true, triggerCount: this.config.triggerCount, maxSpan: this.config.maxSpan },
      crops,
      kept?.newestUserAt
    )
    if (!streak) return {}
    const incidents: Array<Incident> = [
      { step, detector: "streak-crop", action: this.shadow ? "detect" : "crop", detail: { ...streak.marker, replies: streak.replyIds.length } }
    ]
    // Only the new crop's size matters for the cache: older crops are already in the prefix.
    if (streak.croppedBlocks > this.config.cacheRiskBlocks) {
      incidents.push({ step, detector: "streak-crop", action: "cache-risk", detail: { croppedBlocks: streak.croppedBlocks } })
    }
    let crop: CropRequest | undefined
    if (streak.persistOn !== null) {
      if (this.shadow) this.shadowCrops.push(streak.marker)
      else crop = { on: streak.persistOn, marker: streak.marker }
    }
    return { incidents, cropped: true, ...(crop !== undefined ? { crop } : {}) }
  }
}
