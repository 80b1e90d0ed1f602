import { describe, expect, test } from "bun:test"
import type { AssistantMessage, Message, UserMessage } from "@loopguard/core/model"
import { Effect } from "effect"
import { auditConfig } from "./audit-config.js"
import { auditWindow, detectorLookback, makeWindowStore } from "./window-store.js"

const user = (id: string, synthetic?: UserMessage["synthetic"]): UserMessage => ({ role: "user", id, text: id, ...(synthetic ? { synthetic } : {}) })
const reply = (step: number): AssistantMessage => ({ role: "assistant", id: `a${step}`, parentId: "", parts: [], step })
const ids = (ms: ReadonlyArray<Message>) => ms.map((m) => m.id)

describe("window store (the audit's replay store)", () => {
  test("keeps the newest replies with the users among them, and the turn's goal when it left the window", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const store = makeWindowStore(3)
        yield* store.append("s", user("goal"))
        for (let i = 0; i < 3; i++) yield* store.append("s", reply(i))
        yield* store.append("s", user("r1", "loop-remind"))
        yield* store.append("s", reply(3))
        yield* store.append("s", reply(4))
        expect(ids(yield* store.messages("s"))).toEqual(["goal", "a2", "r1", "a3", "a4"])
        yield* store.append("s", user("next"))
        yield* store.append("s", reply(5))
        yield* store.append("s", reply(6))
        // A newer real user message is the goal now: the old one goes with its window.
        expect(ids(yield* store.messages("s"))).toEqual(["a4", "next", "a5", "a6"])
        expect((yield* store.list())[0]).toMatchObject({ id: "s", steps: 3 })
      })
    ))

  test("a reply replaced in place keeps its place; ids of dropped replies still resolve to steps", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const store = makeWindowStore(2)
        for (let i = 0; i < 5; i++) yield* store.putAssistant("s", reply(i))
        yield* store.putAssistant("s", { ...reply(4), finish: "stop" })
        const kept = yield* store.messages("s")
        expect(ids(kept)).toEqual(["a3", "a4"])
        expect((kept[1] as AssistantMessage).finish).toBe("stop")
        expect([store.stepOf("a0"), store.stepOf("a4"), store.stepOf("zz")]).toEqual([0, 4, undefined])
      })
    ))

  test("the window is never smaller than twice what the detectors look back at", () => {
    const c = auditConfig()
    expect(auditWindow({ ...c, audit: { windowSteps: 1 } })).toBe(2 * detectorLookback(c))
    expect(auditWindow({ ...c, audit: { windowSteps: 10_000 } })).toBe(10_000)
    expect(detectorLookback({ ...c, action_cycle: { ...c.action_cycle, maxPeriod: 500 } })).toBeGreaterThanOrEqual(500 * (c.action_cycle.replays + 1))
  })
})
