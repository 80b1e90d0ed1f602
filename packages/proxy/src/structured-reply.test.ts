/**
 * A reply asked to be JSON (a response format or schema) is not read by the repetition guard: a
 * plan of like steps or a matrix of zeros repeats because the schema asked for it, and a cut would
 * leave the client JSON it cannot parse. Through each protocol's real AI SDK provider with
 * `Output.object`, which sends that protocol's own JSON request (checked below, on the upstream's log).
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { generateText, jsonSchema, Output, streamText } from "ai"
import { afterEach, describe, expect, test } from "bun:test"
import { CUT_MARK } from "./notices.js"
import { chatProtocol } from "./protocols/chat.js"
import { messagesProtocol } from "./protocols/messages.js"
import { responsesProtocol } from "./protocols/responses.js"
import { modelFor, PROTOCOLS, records, startRig, type Rig } from "./proxy.fixture.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

interface Plan {
  readonly steps: ReadonlyArray<{ readonly step: number; readonly action: string; readonly status: string }>
}
const planSchema = jsonSchema<Plan>({
  type: "object",
  properties: {
    steps: {
      type: "array",
      items: { type: "object", properties: { step: { type: "number" }, action: { type: "string" }, status: { type: "string" } }, required: ["step", "action", "status"], additionalProperties: false }
    }
  },
  required: ["steps"],
  additionalProperties: false
})
// 80 like steps: as plain text, the repetition guard cuts this (the last test shows it does).
const plan: Plan = { steps: Array.from({ length: 80 }, (_, i) => ({ step: i + 1, action: "read_file", status: "pending" })) }
const planText = JSON.stringify(plan, null, 2)

/** Whether the upstream was asked for JSON, in the protocol's own words. */
const askedForJson = (body: any): boolean =>
  ["json_schema", "json_object"].includes(body?.response_format?.type) ||
  ["json_schema", "json_object"].includes(body?.text?.format?.type) ||
  body?.output_format?.type === "json_schema" ||
  body?.output_config?.format?.type === "json_schema" ||
  body?.generationConfig?.responseMimeType === "application/json"

/** A model id the provider knows to take a response format natively (for an unknown one, Anthropic's gets a forced "json" tool instead). */
const MODEL_ID = { chat: "scripted-model", responses: "scripted-model", messages: "claude-sonnet-4-5", gemini: "scripted-model" } as const

describe.each(PROTOCOLS)("%s through the proxy", (protocol) => {
  const model = (rig: Rig) => modelFor(protocol, `${rig.proxy.url}/v1`, MODEL_ID[protocol])
  test("streamed: a JSON reply asked for with a schema passes whole, however alike its items", async () => {
    rig = await startRig([textStream(planText)])
    const result = streamText({ model: model(rig), prompt: "plan it", output: Output.object({ schema: planSchema }) })
    expect(await result.output).toEqual(plan)
    expect(askedForJson(rig.server.requests[0]!.body)).toBe(true)
    expect(records(rig.events).map((r) => [r.outcome, r.action])).toEqual([["completed", "pass"]])
  }, 60_000)

  test("not streamed: the same, in the JSON reply", async () => {
    rig = await startRig([textStream(planText)])
    const result = await generateText({ model: model(rig), prompt: "plan it", output: Output.object({ schema: planSchema }) })
    expect(result.output).toEqual(plan)
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["completed"])
  }, 60_000)

  test("the same text asked for as plain text is cut: the guard would have read the JSON reply", async () => {
    rig = await startRig([textStream(planText)])
    const text = await streamText({ model: model(rig), prompt: "plan it" }).text
    expect(text).toContain(CUT_MARK)
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["cut"])
  }, 60_000)
})

describe("what counts as a request for JSON", () => {
  const user = [{ role: "user", content: "plan it" }]
  const tool = (name: string) => ({ type: "function", function: { name, parameters: {} } })
  const flags = (c: { structured: boolean; utility: boolean }) => [c.structured, c.utility]
  test("Chat Completions: response_format json_schema or json_object; with no tool it is a utility call", () => {
    expect(flags(chatProtocol.conversation({ messages: user, response_format: { type: "json_schema", json_schema: {} } }))).toEqual([true, true])
    expect(flags(chatProtocol.conversation({ messages: user, response_format: { type: "json_object" } }))).toEqual([true, true])
    expect(flags(chatProtocol.conversation({ messages: user, response_format: { type: "text" } }))).toEqual([false, false])
    // An agent step that also asks for JSON (an output schema for its last answer) is still judged.
    expect(flags(chatProtocol.conversation({ messages: user, tools: [tool("bash")], response_format: { type: "json_schema" } }))).toEqual([true, false])
  })
  test("Responses: text.format json_schema; Codex's output schema comes with its tools", () => {
    expect(flags(responsesProtocol.conversation({ input: "plan it", text: { format: { type: "json_schema", schema: {} } } }))).toEqual([true, true])
    expect(flags(responsesProtocol.conversation({ input: "plan it", text: { format: { type: "text" } } }))).toEqual([false, false])
    expect(flags(responsesProtocol.conversation({ input: "plan it", tools: [{ type: "function", name: "shell" }], text: { format: { type: "json_schema" } } }))).toEqual([true, false])
  })
  test("Messages: output_config.format (and the earlier top-level output_format); a forced json tool is a tool call, not text", () => {
    expect(flags(messagesProtocol.conversation({ messages: user, output_config: { format: { type: "json_schema", schema: {} } } }))).toEqual([true, true])
    expect(flags(messagesProtocol.conversation({ messages: user, output_format: { type: "json_schema", schema: {} } }))).toEqual([true, true])
    expect(flags(messagesProtocol.conversation({ messages: user, tools: [{ name: "json", input_schema: {} }], tool_choice: { type: "any" } }))).toEqual([false, false])
  })
})
