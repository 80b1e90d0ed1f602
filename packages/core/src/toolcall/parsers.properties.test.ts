import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { findMcpXmlBlocks } from "./mcp-xml.js"
import { parseToolArguments } from "./parse-arguments.js"
import { parseToolCalls } from "./parse-tool-calls.js"
import { DEFAULT_REPAIR_TABLE, repairToolCall } from "./repair.js"
import { serverMapFromSystemPrompt } from "./server-map.js"

/** Strings made of the pieces the parsers look for, so the fuzzing reaches the interesting paths. */
const markupish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "<use_mcp_tool>", "</use_mcp_tool>", "<server_name>", "</server_name>", "<tool_name>", "</tool_name>",
        "<arguments>", "</arguments>", "{", "}", "\"", ":", ",", "\\", "```", "\n", "## Server name: ", "### Tool name: ", "**"
      ),
      fc.string({ maxLength: 8 })
    ),
    { maxLength: 30 }
  )
  .map((parts) => parts.join(""))

const chatLike = fc.record({
  id: fc.anything(),
  type: fc.constantFrom("function", "function_call", 1),
  name: fc.anything(),
  call_id: fc.anything(),
  arguments: fc.oneof(fc.string(), markupish, fc.anything()),
  function: fc.oneof(fc.anything(), fc.record({ name: fc.anything(), arguments: fc.oneof(markupish, fc.anything()) }))
})

describe("parsers never throw", () => {
  test("parseToolCalls on arbitrary values, strings and near-miss shapes", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), markupish, fc.array(chatLike), fc.record({ output: fc.array(chatLike) })), (input) => {
        const calls = parseToolCalls(input)
        for (const c of calls) {
          expect(typeof c.id).toBe("string")
          expect(c.name.length).toBeGreaterThan(0)
          expect(typeof c.arguments).toBe("object")
        }
      }),
      { numRuns: 1500 }
    )
  })

  test("parseToolArguments and findMcpXmlBlocks on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), markupish, fc.string({ unit: "binary" })), (text) => {
        const r = parseToolArguments(text)
        if (!r.ok) expect(r.value.raw).toBe(text)
        findMcpXmlBlocks(text)
      }),
      { numRuns: 1500 }
    )
  })

  test("serverMapFromSystemPrompt and repairToolCall on arbitrary input", () => {
    fc.assert(
      fc.property(markupish, fc.dictionary(fc.string(), fc.anything()), fc.string(), (prompt, args, name) => {
        const map = serverMapFromSystemPrompt(prompt)
        for (const v of Object.values(map)) expect(typeof v).toBe("string")
        const call = { id: "x", name, arguments: args, argumentsValid: true, argumentsRepaired: false, format: "chat" } as const
        const r = repairToolCall(call, DEFAULT_REPAIR_TABLE, map)
        for (const v of Object.values(r.call.arguments)) expect(v).not.toBeNull()
      }),
      { numRuns: 1000 }
    )
  })
})
