/**
 * A turn taken up from the memo gives the verdict a fresh judge gives, request after request, and a
 * history that changed under it (an agent compacting, a result rewritten) is judged afresh.
 */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { expect, test } from "bun:test"
import { TurnMemo } from "./turn-judge.js"
import { judgeRequest, judgeRequestSliced } from "./verdict.js"

const user = (at: number, text: string): Message => ({ role: "user", id: `m${at}`, text })
const call = (at: number, step: number, command: string, output: string): AssistantMessage => ({
  role: "assistant",
  id: `m${at}`,
  parentId: "m0",
  step,
  finish: "tool-calls",
  parts: [{ type: "tool", callId: `c${at}`, name: "bash", input: { command }, state: "completed", output, exitCode: 1 }]
})

/** A conversation that loops on one command from step 4 on, with a second user turn at step 9. */
const conversation = (n: number): Array<Message> => {
  const out: Array<Message> = [user(0, "fix the build")]
  for (let i = 0; i < n; i++) {
    if (i === 9) out.push(user(out.length, "keep going"))
    out.push(call(out.length, i, i < 4 ? `cat f${i}.ts` : "make", i < 4 ? `file ${i}` : "Error 2"))
  }
  return out
}

test("request after request, the memo's verdict is the fresh judge's", () => {
  const memo = new TurnMemo()
  for (let n = 1; n <= 14; n++) {
    const history = conversation(n)
    expect(judgeRequest(history, DEFAULT_CONFIG, { memo, session: "s" })).toEqual(judgeRequest(history, DEFAULT_CONFIG))
    // The same request again (a client retrying it) gives the same verdict too.
    expect(judgeRequest(history, DEFAULT_CONFIG, { memo, session: "s" })).toEqual(judgeRequest(history, DEFAULT_CONFIG))
  }
})

test("a history that changed under the kept turn is judged afresh; sessions do not mix", () => {
  const memo = new TurnMemo(1)
  judgeRequest(conversation(8), DEFAULT_CONFIG, { memo, session: "a" })
  const rewritten = conversation(8).map((m) => (m.role === "assistant" && m.step === 5 ? call(Number(m.id.slice(1)), 5, "make", "ok") : m))
  expect(judgeRequest(rewritten, DEFAULT_CONFIG, { memo, session: "a" })).toEqual(judgeRequest(rewritten, DEFAULT_CONFIG))
  judgeRequest(conversation(3), DEFAULT_CONFIG, { memo, session: "b" })
  expect(judgeRequest(conversation(8), DEFAULT_CONFIG, { memo, session: "a" })).toEqual(judgeRequest(conversation(8), DEFAULT_CONFIG))
})

test("the memo lets go of the least recently used turns past its character budget, and verdicts stay the fresh judge's", () => {
  const memo = new TurnMemo(256, 20_000)
  const big = (n: number): Array<Message> => conversation(n).map((m) => (m.role === "assistant" ? call(Number(m.id.slice(1)), m.step, "make", "x".repeat(1_000)) : m))
  for (const session of ["a", "b", "c", "d", "e"]) judgeRequest(big(8), DEFAULT_CONFIG, { memo, session })
  // Eight replies of about 1 KB each per turn: two turns fit in 20,000 characters, not five.
  expect(memo.heldChars).toBeLessThanOrEqual(20_000)
  expect(memo.heldChars).toBeGreaterThan(8_000)
  expect(judgeRequest(big(9), DEFAULT_CONFIG, { memo, session: "a" })).toEqual(judgeRequest(big(9), DEFAULT_CONFIG))
  expect(judgeRequest(big(9), DEFAULT_CONFIG, { memo, session: "e" })).toEqual(judgeRequest(big(9), DEFAULT_CONFIG))
  // One turn larger than the whole budget is still kept: the next request continues it.
  const small = new TurnMemo(256, 1_000)
  judgeRequest(big(8), DEFAULT_CONFIG, { memo: small, session: "a" })
  expect(small.heldChars).toBeGreaterThan(1_000)
  judgeRequest(big(8), DEFAULT_CONFIG, { memo: small, session: "b" })
  expect(small.heldChars).toBeLessThan(2 * 9_000)
})

test("judged in slices, the verdict is the one judged at once, and the event loop runs between the slices", async () => {
  const history = conversation(14)
  let served = 0
  const serve = () => {
    served += 1
    if (served < 1_000) setImmediate(serve)
  }
  setImmediate(serve)
  // A slice of 0 ms pauses after every message: other work runs between them, once per pause.
  const sliced = await judgeRequestSliced(history, DEFAULT_CONFIG, undefined, 0)
  const servedWhileJudging = served
  expect(sliced).toEqual(judgeRequest(history, DEFAULT_CONFIG))
  // The turn judged starts at the second user message: it and its 5 replies, a pause after each.
  expect(servedWhileJudging).toBe(6)
})

test("two requests of one conversation judged in slices at the same time: each gets the fresh judge's verdict, the memo keeps one turn", async () => {
  const memo = new TurnMemo()
  await judgeRequestSliced(conversation(6), DEFAULT_CONFIG, { memo, session: "s" }, 0)
  const [a, b] = await Promise.all([
    judgeRequestSliced(conversation(12), DEFAULT_CONFIG, { memo, session: "s" }, 0),
    judgeRequestSliced(conversation(13), DEFAULT_CONFIG, { memo, session: "s" }, 0)
  ])
  expect(a).toEqual(judgeRequest(conversation(12), DEFAULT_CONFIG))
  expect(b).toEqual(judgeRequest(conversation(13), DEFAULT_CONFIG))
  // One turn kept (the one fed last), its characters counted once.
  const alone = new TurnMemo()
  judgeRequest(conversation(13), DEFAULT_CONFIG, { memo: alone, session: "s" })
  expect(memo.heldChars).toBe(alone.heldChars)
  expect(judgeRequest(conversation(14), DEFAULT_CONFIG, { memo, session: "s" })).toEqual(judgeRequest(conversation(14), DEFAULT_CONFIG))
})
