/** A turn's last allowed step, in each protocol's words: the tools stay declared, the choice says none. */
import { expect, test } from "bun:test"
import { chatProtocol } from "./protocols/chat.js"
import { geminiProtocol } from "./protocols/gemini.js"
import { messagesProtocol } from "./protocols/messages.js"
import { responsesProtocol } from "./protocols/responses.js"

test("tool choice none where tools are offered; a body without tools is left as it is", () => {
  const fn = { type: "function", function: { name: "bash" } }
  expect(chatProtocol.withoutTools({ messages: [], tools: [fn], tool_choice: "required" })).toEqual({ messages: [], tools: [fn], tool_choice: "none" })
  expect(responsesProtocol.withoutTools({ input: [], tools: [{ type: "function", name: "shell" }] }).tool_choice).toBe("none")
  expect(messagesProtocol.withoutTools({ messages: [], tools: [{ name: "Bash" }], tool_choice: { type: "auto" } }).tool_choice).toEqual({ type: "none" })
  const gemini = geminiProtocol("m", true)
  expect(gemini.withoutTools({ contents: [], tools: [{ functionDeclarations: [] }], toolConfig: { functionCallingConfig: { mode: "ANY" } } }).toolConfig).toEqual({ functionCallingConfig: { mode: "NONE" } })
  // A body in snake_case keeps its spelling: no second, conflicting key.
  const snake = gemini.withoutTools({ contents: [], tools: [{ function_declarations: [] }], tool_config: { function_calling_config: { mode: "ANY" } } })
  expect([snake.tool_config, snake.toolConfig]).toEqual([{ function_calling_config: { mode: "NONE" } }, undefined])
  for (const protocol of [chatProtocol, responsesProtocol, messagesProtocol, gemini]) {
    const body = { messages: [], input: [], contents: [] }
    expect(protocol.withoutTools(body)).toBe(body)
  }
})
