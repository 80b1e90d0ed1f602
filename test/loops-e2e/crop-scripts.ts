/**
 * Scripts for the reasoning-loop crop tests: an anchor reply, then replies that think the very
 * same thing while their tool arguments drift (the shape the streak crop keys on reasoning for).
 */
import { toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import type { LoopguardConfig } from "@loopguard/effect"
import { answer } from "./run.js"

export const ANCHOR_REASONING = "First I will list the files in the repository to see its layout."
export const LOOP_REASONING = "The config parser fails, so I need to read config.json again to find the bug."
export const FINAL = "The parser rejects trailing commas; config.json line 3 has one."
export const LOOP_IDS = ["call_loop1", "call_loop2", "call_loop3"] as const

/** The reply before the streak: other reasoning, so it bounds the range and stays as the anchor. */
export const anchor = toolCallStream("bash", { command: "ls" }, { id: "call_anchor", reasoning: ANCHOR_REASONING })

/** One reply of the loop: same reasoning every time, `command` drifting. */
export const drift = (i: number, command: string, text?: string): ScriptedResponse =>
  toolCallStream("bash", { command }, { id: `call_loop${i}`, reasoning: LOOP_REASONING, ...(text !== undefined ? { text } : {}) })

/** Anchor, three looping replies, an answer, and one more answer for a second user turn. */
export const loopScript = (): ReadonlyArray<ScriptedResponse> => [
  anchor,
  drift(1, "cat config.json"),
  drift(2, "cat ./config.json"),
  drift(3, "head -50 config.json"),
  answer(FINAL),
  answer("Removed the trailing comma.")
]

export const SAY = "Checking the config once more."

/**
 * Replies 1-3 share their reasoning (a streak) but not their text-loop key (the 1st reads another
 * file); the reply after them, sent right after the crop, completes three identical text-loop keys.
 */
export const cropThenRepeatScript = (): ReadonlyArray<ScriptedResponse> => [
  anchor,
  drift(1, "cat a.json", SAY),
  drift(2, "cat config.json", SAY),
  drift(3, "cat config.json", SAY),
  toolCallStream("bash", { command: "cat config.json" }, { id: "call_after", text: SAY }),
  answer(FINAL)
]

export const cropOn = (c: LoopguardConfig): LoopguardConfig => ({ ...c, loopStreakRecovery: { ...c.loopStreakRecovery, enabled: true } })
