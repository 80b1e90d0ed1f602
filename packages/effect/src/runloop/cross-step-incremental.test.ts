/**
 * The cross-step detectors fed one step at a time (step records and crop markers kept by the
 * history view) give the same verdicts as when they make everything again from the whole stored
 * history. Generated sessions from a small alphabet of calls and results, so repeats, cycles,
 * replays, spins, failures and streaks all fire; with exclusions of the newest and of older
 * replies, stored crops, reminders, and shadow mode. Sized to run well under a second.
 */
import { replyKey } from "@loopguard/core/loops"
import type { AssistantMessage } from "@loopguard/core/model"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import fc from "fast-check"
import { DEFAULT_CONFIG } from "../config/defaults.js"
import type { LoopguardConfig } from "../config/schema.js"
import { makeMemoryStore } from "../store/SessionStore.js"
import { CrossStepDetectors } from "@loopguard/core/judge"
import { HistoryView } from "./history-view.js"

const SESSION = "s"

interface StepSpec {
  readonly call: number
  readonly output: number
  readonly failed: boolean
  readonly edit: boolean
  readonly reasoning: number
  /** After the step: 0 nothing, 1 exclude it, 2 exclude an older reply, 3 store a crop, 4 a reminder, 5 a new user turn. */
  readonly then: number
}

const stepSpec: fc.Arbitrary<StepSpec> = fc.record({
  call: fc.nat(3),
  output: fc.nat(2),
  failed: fc.boolean(),
  edit: fc.boolean(),
  reasoning: fc.nat(1),
  then: fc.oneof({ weight: 10, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) })
})

const replyOf = (n: number, s: StepSpec): AssistantMessage => ({
  role: "assistant",
  id: `a${n}`,
  parentId: "u0",
  step: n,
  finish: s.call === 0 ? "stop" : "tool-calls",
  parts: [
    ...(s.reasoning > 0 ? [{ type: "reasoning" as const, text: "I will look at the same file again" }] : []),
    { type: "text", text: s.call === 0 ? "Let me think about it." : `Let me run step ${s.call}.` },
    ...(s.call === 0
      ? []
      : [
          {
            type: "tool" as const,
            callId: `c${n}`,
            name: s.edit ? "edit" : "bash",
            input: s.edit ? { path: "src/a.ts", diff: `-a\n+b${s.call}` } : { command: `grep -rn thing${s.call} src` },
            state: s.failed ? ("error" as const) : ("completed" as const),
            ...(s.failed ? { error: `no such file ${s.output}` } : { output: `found ${s.output} matches`, exitCode: 0 }),
            ...(s.edit && !s.failed ? { path: "src/a.ts", diff: `-a\n+b${s.call}` } : {})
          }
        ])
  ]
})

const configOf = (streak: boolean): LoopguardConfig => {
  const c = structuredClone(DEFAULT_CONFIG)
  return { ...c, loopStreakRecovery: { ...c.loopStreakRecovery, enabled: streak }, repeatedAction: { ...c.repeatedAction, stopAt: 12 } }
}

/** Detectors that fired anywhere in the generated sessions: the comparison is not over silence. */
const fired = new Set<string>()

const replay = (specs: ReadonlyArray<StepSpec>, shadow: boolean, streak: boolean) =>
  Effect.gen(function* () {
    const store = makeMemoryStore()
    const config = configOf(streak)
    const incremental = new CrossStepDetectors(config, "main", shadow)
    const fromScratch = new CrossStepDetectors(config, "main", shadow)
    const view = new HistoryView(store, SESSION, { enforce: !shadow, streakCrops: streak })
    yield* store.append(SESSION, { role: "user", id: "u0", text: "fix the thing" })
    for (const [i, s] of specs.entries()) {
      const n = i + 1
      const reply = replyOf(n, s)
      yield* store.putAssistant(SESSION, reply)
      yield* view.refresh
      const whole = yield* store.messages(SESSION)
      const ctx = { final: s.call === 0, costUsd: null }
      const fed = incremental.afterStep(view.messages, reply, n, ctx, view)
      const made = fromScratch.afterStep(whole, reply, n, ctx)
      expect(fed).toEqual(made)
      for (const incident of made.incidents) fired.add(incident.detector)
      expect(incremental.takeNote()).toEqual(fromScratch.takeNote())
      // Crops the detectors ask for are stored, as the RunLoop does when enforcing.
      if (made.crop !== null) yield* store.addCrop(SESSION, made.crop.on, made.crop.marker)
      const replies = whole.filter((m): m is AssistantMessage => m.role === "assistant")
      if (s.then === 1) yield* store.exclude(SESSION, reply.id, "rollback")
      if (s.then === 2 && replies.length > 3) yield* store.exclude(SESSION, replies[replies.length - 3]!.id, "text-tool-call")
      if (s.then === 3 && replies.length > 2) yield* store.addCrop(SESSION, "u0", { from: replies[replies.length - 3]!.id, to: reply.id, key: replyKey(reply), truncated: false })
      if (s.then === 4) yield* store.append(SESSION, { role: "user", id: `r${n}`, text: "a reminder", synthetic: "loop-remind" })
      if (s.then === 5) yield* store.append(SESSION, { role: "user", id: `u${n}`, text: "now the other thing" })
    }
  })

describe("cross-step detectors fed one step at a time", () => {
  test("the same incidents, notes, reminders, crops, pauses and exits as from the whole history", () => {
    fc.assert(
      fc.property(fc.array(stepSpec, { minLength: 5, maxLength: 45 }), fc.boolean(), fc.boolean(), (specs, shadow, streak) => {
        Effect.runSync(replay(specs, shadow, streak))
      }),
      { numRuns: 40, seed: 15 }
    )
    for (const d of ["repeated-action", "repeated-observation", "repeated-failure", "no-progress-spin", "streak-crop"]) expect(fired).toContain(d)
  })
})
