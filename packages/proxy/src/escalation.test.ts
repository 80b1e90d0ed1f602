/**
 * What the proxy remembers lives in the history the agent sends back: a cut reply is cropped to
 * its notice before it goes upstream, the k-th cut brings REMIND, then REPLAN, then a stop the
 * proxy answers itself; a new user message after the stop starts afresh. Reminders from the
 * cross-step judge go to the upstream only. Raw Chat Completions requests, as an agent sends them.
 */
import { repeatLoop, textStream } from "@loopguard/ai-sdk/testing"
import { reminderText } from "@loopguard/core/classify"
import { afterEach, expect, test } from "bun:test"
import { CUT_MARK, STOP_MARK } from "./notices.js"
import { post, records, startRig, type Rig } from "./proxy.fixture.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** The text of a streamed Chat Completions reply. */
const streamedText = (sse: string): string =>
  sse
    .split("\n\n")
    .filter((e) => e.startsWith("data: {"))
    .map((e) => JSON.parse(e.slice(6)).choices?.[0]?.delta?.content ?? "")
    .join("")

const loop = repeatLoop("we keep going around the same block of words", 300, { finish: "stop", chunkDelayMs: 1 })

test("cut, REMIND, cut, REPLAN, cut, stop: then a new user message goes upstream again", async () => {
  rig = await startRig((body) => (JSON.stringify(body).includes("a fresh question") ? textStream("A fresh answer.") : loop))
  const url = `${rig.proxy.url}/v1/chat/completions`
  const messages: Array<Record<string, unknown>> = [{ role: "user", content: "write the essay" }]
  const ask = async () => {
    const reply = await post(url, { model: "m", stream: true, messages })
    const text = streamedText(reply.text)
    messages.push({ role: "assistant", content: text }, { role: "user", content: "continue" })
    return { text, action: reply.headers.get("x-loopguard-action") }
  }
  expect((await ask()).text).toContain(CUT_MARK)
  const second = await ask()
  expect(second.text).toContain(CUT_MARK)
  expect(second.action).toBe("remind")
  // The repeating span did not go upstream again: the cut reply is its notice alone, the reminder follows.
  const upstream2 = rig.server.requests[1]!.body.messages as Array<{ role: string; content: string }>
  expect(upstream2[1]!.content.startsWith(CUT_MARK)).toBe(true)
  expect(upstream2.at(-1)!.content).toBe(reminderText("text-repeat-remind", "main"))
  const third = await ask()
  expect(third.action).toBe("remind")
  const upstream3 = rig.server.requests[2]!.body.messages as Array<{ role: string; content: string }>
  expect(upstream3.at(-1)!.content).toBe(reminderText("text-repeat-replan", "main"))
  expect(upstream3.map((m) => m.content)).toContain(reminderText("text-repeat-remind", "main"))
  const fourth = await ask()
  expect(fourth.action).toBe("stop")
  expect(fourth.text).toContain(STOP_MARK)
  expect(rig.server.requests.length).toBe(3)
  // The agent's history keeps the text it was shown; only the upstream saw the crops and reminders.
  expect(String(messages[1]!["content"]).length).toBeGreaterThan(200)
  messages.push({ role: "user", content: "a fresh question" })
  const after = await post(url, { model: "m", stream: true, messages })
  expect(streamedText(after.text)).toBe("A fresh answer.")
  expect(rig.server.requests.length).toBe(4)
  expect(records(rig.events).map((r) => r.outcome)).toEqual(["cut", "cut", "cut", "answered", "completed"])
}, 60_000)

test("a repeated call gets a note, then a reminder, in the upstream request only", async () => {
  rig = await startRig(() => textStream("ok"))
  const url = `${rig.proxy.url}/v1/chat/completions`
  const step = (i: number) => [
    { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "bash", arguments: '{"command":"npm test"}' } }] },
    { role: "tool", tool_call_id: `c${i}`, content: "1 failing" }
  ]
  const history = (n: number) => [{ role: "user", content: "fix the test" }, ...Array.from({ length: n }, (_, i) => step(i)).flat()]
  const sent = history(5)
  const reply = await post(url, { model: "m", stream: true, messages: sent })
  expect(reply.status).toBe(200)
  expect(reply.headers.get("x-loopguard-action")).toBe("remind")
  const upstream = rig.server.requests[0]!.body.messages as Array<{ role: string; content: string | null }>
  expect(upstream.length).toBeGreaterThan(sent.length)
  expect(upstream.slice(-1)[0]!.role).toBe("user")
  // The client's own messages went up unchanged, in order.
  expect(upstream.filter((m) => !(m.role === "user" && m.content !== "fix the test"))).toEqual(sent as never)
  const [record] = records(rig.events)
  expect(record?.incidents.some((i) => i.detector === "repeated-action")).toBe(true)
}, 60_000)
