import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { findToolCallMarkup, hasToolCallMarkup, TOOL_CALL_MARKERS } from "./markup.js"

describe("tool-call markup", () => {
  const leaks: ReadonlyArray<readonly [string, string]> = [
    ['<invoke name="read_file">', "invoke"],
    ['<invoke name="x">', "invoke"],
    ["<minimax:tool_call>\n<invoke name=\"bash\">", "invoke"],
    ["<function_calls>", "function_calls"],
    ["<tool_call>\n{}\n</tool_call>", "tool_call"],
    ["<seed:tool_call><function=bash>", "tool_call"],
    ["<tool_calls>[]</tool_calls>", "tool_calls"],
    ["<use_mcp_tool>\n<server_name>fs</server_name>", "use_mcp_tool"],
    ["<function=get_weather>{\"city\":\"Paris\"}</function>", "function="],
    ["<tool_use>", "tool_use"],
    ["<|tool_call_begin|>functions.read:0", "kimi"],
    ["<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function", "deepseek"],
    ["<|python_tag|>brave_search.call(query=\"x\")", "python_tag"],
    ['[TOOL_CALLS][{"name": "bash"}]', "mistral"],
    ["<|channel|>commentary to=functions.get_weather <|constrain|>json", "harmony"],
    ['{"tool_calls": [{"type": "function"}]}', "json-tool_calls"],
    ['{"function_call": {"name": "f"}}', "json-function_call"]
  ]
  for (const [sample, id] of leaks) {
    test(`finds ${id} in ${sample.slice(0, 24)}`, () => {
      expect(findToolCallMarkup(`Sure, calling it now.\n${sample}`)?.id).toBe(id)
      expect(hasToolCallMarkup(sample)).toBe(true)
    })
  }

  test("ordinary prose and code are not markup", () => {
    const clean = [
      "",
      "The function = f(x) returns a value.",
      "I will invoke the build script next.",
      "Set tool_calls to an empty list in the config.",
      "const toolCalls = response.tool_calls ?? []",
      "Use the <div> tag and call the tool_call helper.",
      "The answer is 42."
    ]
    for (const s of clean) expect(hasToolCallMarkup(s)).toBe(false)
  })

  test("every marker has a unique id and a non-global pattern (no lastIndex state)", () => {
    const ids = TOOL_CALL_MARKERS.map((m) => m.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const m of TOOL_CALL_MARKERS) expect(m.pattern.global || m.pattern.sticky).toBe(false)
  })

  test("never throws, and repeated calls agree", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (s) => {
        expect(hasToolCallMarkup(s)).toBe(hasToolCallMarkup(s))
      })
    )
  })
})
