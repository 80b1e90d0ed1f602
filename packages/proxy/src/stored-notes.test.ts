/**
 * What the session store keeps of the proxy's additions: the reminder of a loop (a synthetic user
 * turn, as the RunLoop stores it), and not the note, which went with its request only (as the
 * RunLoop's does), so `sessions show` does not list it before every later step.
 */
import { toolCallStream } from "@loopguard/ai-sdk/testing"
import { generateText, jsonSchema, stepCountIs, tool } from "ai"
import { afterEach, expect, test } from "bun:test"
import { Effect } from "effect"
import { reminderText } from "@loopguard/core/classify"
import { makeMemoryStore } from "@loopguard/effect/store"
import { modelFor, records, startRig, type Rig } from "./proxy.fixture.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const NOTE = reminderText("repeated-action", "main")
const REMIND = reminderText("loop-remind", "main")

test("the note goes upstream with its requests and is not stored; the reminder is stored once, where it was given", async () => {
  const store = makeMemoryStore()
  rig = await startRig(() => toolCallStream("bash", { command: "ls" }), { proxy: { store } })
  const bash = tool({ description: "run a command", inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }), execute: async () => "a.txt" })
  const headers = { "x-loopguard-session": "stored-notes" }
  await generateText({ model: modelFor("chat", `${rig.proxy.url}/v1`), tools: { bash }, headers, prompt: "list the files", stopWhen: stepCountIs(6), maxRetries: 0 })
  expect(records(rig.events).map((r) => r.action)).toEqual(["pass", "pass", "pass", "note", "note", "remind"])
  // From the 4th request on, each carried the note upstream (the 6th its reminder too).
  expect(rig.server.requests.map((r) => JSON.stringify(r.body).includes(JSON.stringify(NOTE).slice(1, -1)))).toEqual([false, false, false, true, true, true])
  let stored: ReadonlyArray<{ role: string; text?: string; synthetic?: string }> = []
  for (let i = 0; i < 100 && stored.filter((m) => m.role === "assistant").length < 6; i++) {
    stored = (await Effect.runPromise(store.messages("stored-notes"))) as typeof stored
    await Bun.sleep(20)
  }
  const synthetic = stored.filter((m) => m.role === "user" && m.synthetic !== undefined)
  expect(synthetic.map((m) => m.text)).toEqual([REMIND])
}, 60_000)
