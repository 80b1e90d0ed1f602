import { describe, expect, test } from "bun:test"
import type { AssistantMessage, Message, UserMessage } from "@loopguard/core/model"
import { Effect } from "effect"
import { auditConfig } from "./audit-config.js"
import { auditWindow, detectorLookback, makeWindowStore } from "./window-store.js"

const user = (id: string, synthetic?: UserMessage["synthetic"]): UserMessage => ({ role: "user", id, text: id, ...(synthetic ? { synthetic } : {}) })
const reply = (step: number): AssistantMessage => ({ role: "assistant", id: `a${step}`, parentId: "", parts: [], step })
const ids = (ms: ReadonlyArray<Message>) => ms.map((m) => m.id)

describe("window store (the audit's replay store)", () => {
  test("keeps at least the newest replies, trimmed in batches at twice that, with the users among them and the turn's goal", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const store = makeWindowStore(3)
        yield* store.append("s", user("goal"))
        for (let i = 0; i < 3; i++) yield* store.append("s", reply(i))
        yield* store.append("s", user("r1", "loop-remind"))
        for (let i = 3; i < 6; i++) yield* store.append("s", reply(i))
        // Six replies: not trimmed yet.
        expect(ids(yield* store.messages("s"))).toEqual(["goal", "a0", "a1", "a2", "r1", "a3", "a4", "a5"])
        yield* store.append("s", reply(6))
        // The seventh trims to the newest three; the goal left with them and comes back first.
        expect(ids(yield* store.messages("s"))).toEqual(["goal", "a4", "a5", "a6"])
        yield* store.append("s", user("next"))
        for (let i = 7; i < 11; i++) yield* store.append("s", reply(i))
        // A newer real user message is the goal now: the old one goes with its window.
        expect(ids(yield* store.messages("s"))).toEqual(["next", "a8", "a9", "a10"])
        expect((yield* store.list())[0]).toMatchObject({ id: "s", steps: 3 })
      })
    ))

  test("between trims a reader gets only what changed; a trim makes it read the window once, whole", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const store = makeWindowStore(2)
        yield* store.append("s", user("goal"))
        yield* store.append("s", reply(0))
        const first = yield* store.changes!("s", null)
        expect([first.reset, first.length]).toEqual([true, 2])
        yield* store.append("s", reply(1))
        yield* store.exclude("s", "a0", "replayed")
        const next = yield* store.changes!("s", first.cursor)
        expect([next.reset, next.changed.map((c) => [c.index, c.message.id])]).toEqual([false, [[1, "a0"], [2, "a1"]]])
        for (let i = 2; i < 5; i++) yield* store.append("s", reply(i))
        const trimmed = yield* store.changes!("s", next.cursor)
        expect([trimmed.reset, trimmed.changed.map((c) => c.message.id)]).toEqual([true, ["goal", "a3", "a4"]])
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
    expect(detectorLookback({ ...c, actionCycle: { ...c.actionCycle, maxPeriod: 500 } })).toBeGreaterThanOrEqual(500 * (c.actionCycle.replays + 1))
  })
})
