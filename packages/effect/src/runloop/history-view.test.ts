/**
 * The incremental history view against the whole-history functions it replaces: after every write
 * of a generated session (replies written ahead and rewritten, reminders, exclusions of the newest
 * and of older replies, reasoning-loop crops, compactions), the view's request messages, cropped
 * ids, token estimate, step records and crop markers equal what `requestView`, `requestTokens` and
 * `stepRecords` give on the whole stored history. Sized to run well under a second.
 */
import { persistedCrops, replyKey, stepRecords } from "@loopguard/core/loops"
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import fc from "fast-check"
import { toRequestMessages } from "../compaction/Compactor.js"
import type { LlmRequest } from "../llm/LLM.js"
import { makeMemoryStore, type SessionStoreShape } from "../store/SessionStore.js"
import { HistoryView } from "./history-view.js"
import { requestView } from "./request.js"
import { requestTokens } from "./stages/compact.js"

const SESSION = "s"

type Op =
  | { readonly kind: "reply"; readonly tool: number; readonly reasoning: number; readonly rewrite: boolean }
  | { readonly kind: "remind" }
  | { readonly kind: "turn" }
  | { readonly kind: "exclude"; readonly back: number }
  | { readonly kind: "crop"; readonly back: number }
  | { readonly kind: "compact"; readonly back: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant("reply" as const), tool: fc.nat(3), reasoning: fc.nat(2), rewrite: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "remind" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "turn" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("exclude" as const), back: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("crop" as const), back: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), back: fc.nat(6) }) }
)

const replyOf = (n: number, tool: number, reasoning: number, finished: boolean): AssistantMessage => ({
  role: "assistant",
  id: `a${n}`,
  parentId: "u0",
  step: n,
  parts: [
    ...(reasoning > 0 ? [{ type: "reasoning" as const, text: `think ${reasoning}` }] : []),
    { type: "text", text: `step ${n} 漢字` },
    ...(tool > 0 ? [{ type: "tool" as const, callId: `c${n}`, name: "bash", input: { command: `ls ${tool}` }, state: finished ? ("completed" as const) : ("running" as const), output: `out ${tool}` }] : [])
  ],
  ...(finished ? { finish: tool > 0 ? ("tool-calls" as const) : ("stop" as const) } : {})
})

/** Plays one write on the store, the way the RunLoop and the processor do. */
const play = (store: SessionStoreShape, all: ReadonlyArray<Message>, o: Op, n: number): Effect.Effect<void, unknown> => {
  const replies = all.filter((m): m is AssistantMessage => m.role === "assistant")
  const nth = (back: number) => replies[Math.max(0, replies.length - 1 - back)]
  switch (o.kind) {
    case "reply":
      return Effect.gen(function* () {
        // Written ahead while its tool runs, then rewritten when the step is done.
        if (o.rewrite) yield* store.putAssistant(SESSION, replyOf(n, o.tool, o.reasoning, false))
        yield* store.putAssistant(SESSION, replyOf(n, o.tool, o.reasoning, true))
      })
    case "turn":
      return store.append(SESSION, { role: "user", id: `u${n}`, text: "and then this" })
    case "remind":
      return store.append(SESSION, { role: "user", id: `r${n}`, text: "a reminder", synthetic: "loop-remind" })
    case "exclude": {
      const target = nth(o.back)
      return target === undefined ? Effect.void : store.exclude(SESSION, target.id, "rollback")
    }
    case "crop": {
      const to = nth(0)
      const from = nth(o.back)
      if (to === undefined || from === undefined) return Effect.void
      return store.addCrop(SESSION, "u0", { from: from.id, to: to.id, key: replyKey(to), truncated: false })
    }
    case "compact": {
      const first = all[1]
      const last = nth(o.back)
      if (first === undefined || last === undefined) return Effect.void
      return store.append(SESSION, { role: "user", id: `c${n}`, text: `summary ${n}`, synthetic: "compaction", compacts: { from: first.id, to: last.id } })
    }
  }
}

const request = (view: HistoryView): LlmRequest => ({ system: "be brief", messages: view.requestMessages([{ role: "user", text: "a note" }]), tools: [] })

const expectSame = (view: HistoryView, all: ReadonlyArray<Message>, enforce: boolean, streakCrops: boolean) => {
  const whole = requestView(all, enforce, streakCrops)
  expect(view.messages).toEqual(all)
  expect(view.viewMessages()).toEqual(whole.messages)
  expect(view.croppedIds()).toEqual(whole.croppedIds)
  const built: LlmRequest = { system: "be brief", messages: [...toRequestMessages(whole.messages), { role: "user", text: "a note" }], tools: [] }
  expect(request(view)).toEqual(built)
  expect(view.estimateTokens(built, [{ role: "user", text: "a note" }])).toBe(requestTokens(built))
  expect(view.records.records).toEqual(stepRecords(all))
  expect(view.crops).toEqual(persistedCrops(all))
  expect(view.newestUserAt).toBe(all.map((m, i) => (m.role === "user" && m.synthetic === undefined ? i : -1)).reduce((a, b) => Math.max(a, b), -1))
}

/** A store that cannot say what changed: the view reads it whole every time. */
const withoutChanges = (store: SessionStoreShape): SessionStoreShape => {
  const { changes: _, ...rest } = store
  return rest
}

const replay = (ops: ReadonlyArray<Op>, enforce: boolean, streakCrops: boolean, bare: boolean) =>
  Effect.gen(function* () {
    const memory = makeMemoryStore()
    const store = bare ? withoutChanges(memory) : memory
    const view = new HistoryView(store, SESSION, { enforce, streakCrops })
    yield* store.append(SESSION, { role: "user", id: "u0", text: "the task" })
    for (const [n, o] of ops.entries()) {
      yield* play(store, yield* store.messages(SESSION), o, n + 1)
      yield* view.refresh
      expectSame(view, yield* store.messages(SESSION), enforce, streakCrops)
    }
  })

describe("HistoryView", () => {
  test("equals the whole-history request view, token estimate and step records after every write", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.boolean(), fc.boolean(), fc.boolean(), (ops, enforce, streakCrops, bare) => {
        Effect.runSync(replay(ops, enforce, streakCrops, bare))
      }),
      { numRuns: 60 }
    )
  })

  // Found by the property above: without the newest reply, the view ends on a cropped one, which a "Continue." must follow.
  test("the newest reply excluded after a cropped one: the view ends with a Continue., as the whole view does", () =>
    Effect.runSync(
      replay(
        [
          { kind: "reply", tool: 0, reasoning: 0, rewrite: false },
          { kind: "reply", tool: 1, reasoning: 0, rewrite: false },
          { kind: "crop", back: 0 },
          { kind: "reply", tool: 0, reasoning: 0, rewrite: false },
          { kind: "exclude", back: 0 }
        ],
        true,
        true,
        false
      )
    ))

  test("a session that only grows is built once, however long", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const store = makeMemoryStore()
        const view = new HistoryView(store, SESSION, { enforce: true, streakCrops: true })
        yield* store.append(SESSION, { role: "user", id: "u0", text: "the task" })
        for (let n = 1; n <= 300; n++) {
          yield* play(store, [], { kind: "reply", tool: 1 + (n % 3), reasoning: 0, rewrite: true }, n)
          yield* view.refresh
          view.requestMessages()
        }
        expect(view.rebuilds).toBe(1)
        expect(view.viewMessages()).toHaveLength(301)
        // The newest reply excluded (a rollback) is taken back in place; an older one rebuilds once.
        yield* store.exclude(SESSION, "a300", "rollback")
        yield* view.refresh
        expect(view.viewMessages()).toHaveLength(300)
        expect(view.rebuilds).toBe(1)
        yield* store.exclude(SESSION, "a10", "rollback")
        yield* view.refresh
        expect(view.viewMessages()).toHaveLength(299)
        expect(view.rebuilds).toBe(2)
      })
    ))
})
