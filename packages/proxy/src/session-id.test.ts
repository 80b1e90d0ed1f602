/** The session an agent names in `x-loopguard-session`: a good id is used, a bad one refused, none derived. */
import { describe, expect, test } from "bun:test"
import { textStream } from "@loopguard/ai-sdk/testing"
import { post, records, startRig } from "./proxy.fixture.js"
import { chatProtocol } from "./protocols/chat.js"
import { messagesProtocol } from "./protocols/messages.js"
import { responsesProtocol } from "./protocols/responses.js"
import { sessionHeaderRefusal, sessionIdOf } from "./session-id.js"

const HEADER = "x-loopguard-session"

test("a named id that is no session id is refused with the header and the rule; a good one or none is not", () => {
  for (const bad of ["a/b", "../../x", "x".repeat(129), "a b"]) {
    const why = sessionHeaderRefusal({ [HEADER]: bad }, HEADER)
    expect(why).toContain(HEADER)
    expect(why).toContain("letters, digits")
  }
  expect(sessionHeaderRefusal({ [HEADER]: "x".repeat(10_000) }, HEADER)!.length).toBeLessThan(300)
  for (const good of [undefined, "", "run-1", "agent@host:2"]) expect(sessionHeaderRefusal({ [HEADER]: good }, HEADER)).toBeNull()
})

test("a request naming a bad session id gets a 400 in its protocol's shape and reaches neither the upstream nor the records", async () => {
  const rig = await startRig([textStream("ok")])
  try {
    const body = { model: "m", stream: false, messages: [{ role: "user", content: "y" }] }
    const refused = await post(`${rig.proxy.url}/v1/chat/completions`, body, { [HEADER]: "../../x" })
    expect(refused.status).toBe(400)
    expect(JSON.parse(refused.text).error.message).toContain(HEADER)
    expect(rig.server.requests.length).toBe(0)
    expect(records(rig.events).length).toBe(0)
    const named = await post(`${rig.proxy.url}/v1/chat/completions`, body, { [HEADER]: "run-1" })
    expect(named.status).toBe(200)
    expect(records(rig.events)[0]?.session).toBe("run-1")
  } finally {
    await rig.close()
  }
}, 30_000)

describe("the session a request is derived into", () => {
  const id = (protocol: typeof chatProtocol, body: unknown) => sessionIdOf({}, HEADER, protocol.conversation(body))
  const tools = [{ type: "function", function: { name: "shell", parameters: { type: "object" } } }]
  const opening = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "<environment_context>cwd /repo, 2026-12-03</environment_context>" }]

  test("two conversations that open alike are told apart by the id the agent sends (Codex's prompt_cache_key, Claude Code's session id); one conversation keeps one", () => {
    const codex = (key: string) => id(responsesProtocol, { model: "m", instructions: "You are Codex.", input: [{ role: "user", content: "<environment_context>cwd /repo</environment_context>" }], tools: [{ type: "function", name: "shell", parameters: {} }], prompt_cache_key: key })
    expect(codex("01a2-aaaa")).not.toBe(codex("01a2-bbbb"))
    expect(codex("01a2-aaaa")).toBe(codex("01a2-aaaa"))
    const claude = (session: string) => id(messagesProtocol, { model: "m", system: "You are Claude Code.", messages: [{ role: "user", content: "fix it" }], tools: [{ name: "Bash", input_schema: {} }], metadata: { user_id: JSON.stringify({ device_id: "d1", account_uuid: "", session_id: session }) } })
    expect(claude("2c905737-6782-4e43-ad3b-99ede98fddd1")).not.toBe(claude("9a1b2c3d-0000-4e43-ad3b-99ede98fddd1"))
    const older = (session: string) => id(messagesProtocol, { model: "m", system: "s", messages: [{ role: "user", content: "u" }], metadata: { user_id: `user_abc_account_def_session_${session}` } })
    expect(older("11111111-2222")).not.toBe(older("33333333-4444"))
    // Without such an id the id is what it always was: the hash of what opens the conversation.
    expect(id(chatProtocol, { model: "m", messages: opening, tools })).toMatch(/^proxy-[0-9a-f]{16}$/)
  })

  test("a side request (a question after tool calls, offering no tools) goes to <id>.side, not into the conversation's places", () => {
    const history = [...opening, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "shell", arguments: '{"command":"ls"}' } }] }, { role: "tool", tool_call_id: "c1", content: "a.py" }]
    const step = id(chatProtocol, { model: "m", messages: history, tools })
    const summary = id(chatProtocol, { model: "m", messages: [...history, { role: "user", content: "Summarize the conversation so far." }] })
    expect(summary).toBe(`${step}.side`)
    // A step that ends with its tools' results is the conversation's, offered tools or not.
    expect(id(chatProtocol, { model: "m", messages: history })).toBe(step)
    // No tool calls yet, no tools offered: a plain chat, its own conversation as before.
    expect(id(chatProtocol, { model: "m", messages: opening })).toBe(id(chatProtocol, { model: "m", messages: opening, tools }))
    expect(sessionIdOf({ [HEADER]: "run-1" }, HEADER, chatProtocol.conversation({ model: "m", messages: [...history, { role: "user", content: "recap" }] }))).toBe("run-1.side")
  })
})
