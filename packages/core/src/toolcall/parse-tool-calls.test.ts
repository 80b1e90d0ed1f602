import { describe, expect, test } from "bun:test"
import { parseToolCalls } from "./parse-tool-calls.js"
import type { ParsedToolCall } from "./tool-call.js"

describe("parseToolCalls: OpenAI Responses output items", () => {
  const item = { type: "function_call", id: "fc_1", call_id: "call_1", name: "google_search", arguments: `{"q":"loopguard"}` }

  test("a single item, an array of items and a whole response all parse the same", () => {
    const expected: ReadonlyArray<ParsedToolCall> = [
      { id: "call_1", name: "google_search", arguments: { q: "loopguard" }, argumentsValid: true, argumentsRepaired: false, format: "responses" }
    ]
    expect(parseToolCalls(item)).toEqual(expected)
    expect(parseToolCalls([item])).toEqual(expected)
    expect(parseToolCalls({ id: "resp_1", output: [{ type: "message", content: [] }, item] })).toEqual(expected)
  })

  test("call_id is preferred over the item id, which is the fallback", () => {
    const { call_id: _drop, ...noCallId } = item
    expect(parseToolCalls(noCallId)[0]?.id).toBe("fc_1")
  })

  test("server split at the last separator only when asked", () => {
    const named = { ...item, name: "tool-python-run_python_code" }
    expect(parseToolCalls(named)[0]).toMatchObject({ name: "tool-python-run_python_code" })
    expect(parseToolCalls(named)[0]?.server).toBeUndefined()
    expect(parseToolCalls(named, { serverSeparator: "-" })[0]).toMatchObject({ server: "tool-python", name: "run_python_code" })
    expect(parseToolCalls({ ...item, name: "plain" }, { serverSeparator: "-" })[0]?.server).toBeUndefined()
  })

  test("broken argument JSON is repaired; hopeless JSON becomes {error, raw}", () => {
    const repaired = parseToolCalls({ ...item, arguments: `{q: 'loop guard',}` })[0]
    expect(repaired).toMatchObject({ arguments: { q: "loop guard" }, argumentsValid: true, argumentsRepaired: true })
    const hopeless = parseToolCalls({ ...item, arguments: "[1, 2]" })[0]
    expect(hopeless?.argumentsValid).toBe(false)
    expect(hopeless?.arguments).toMatchObject({ raw: "[1, 2]" })
    expect(typeof (hopeless?.arguments as { error: unknown }).error).toBe("string")
  })
})

describe("parseToolCalls: Chat Completions tool_calls", () => {
  const calls = [
    { id: "call_a", type: "function", function: { name: "fetch", arguments: `{"url":"https://a.example"}` } },
    { id: "call_b", type: "function", function: { name: "read", arguments: { path: "x.ts" } } }
  ]

  test("an array, a message and a completion response all parse, in order", () => {
    for (const input of [calls, { role: "assistant", content: null, tool_calls: calls }, { choices: [{ message: { tool_calls: calls } }] }]) {
      const out = parseToolCalls(input)
      expect(out.map((c) => [c.id, c.name, c.format])).toEqual([
        ["call_a", "fetch", "chat"],
        ["call_b", "read", "chat"]
      ])
      expect(out[0]?.arguments).toEqual({ url: "https://a.example" })
      // Some servers send arguments already parsed.
      expect(out[1]?.arguments).toEqual({ path: "x.ts" })
    }
  })

  test("Windows paths keep their backslashes; cut-off JSON is not completed", () => {
    const whole = [{ id: "c", type: "function", function: { name: "read", arguments: `{"path": "C:\\Users\\me\\data.txt", "n": 3}` } }]
    expect(parseToolCalls(whole)[0]?.arguments).toEqual({ path: "C:\\Users\\me\\data.txt", n: 3 })
    const cut = [{ id: "c", type: "function", function: { name: "read", arguments: `{"path": "C:\\Users\\me\\data.txt", "n": 3` } }]
    expect(parseToolCalls(cut)[0]).toMatchObject({ argumentsValid: false, arguments: { raw: `{"path": "C:\\Users\\me\\data.txt", "n": 3` } })
  })

  test("missing or empty arguments are an empty object; items without a name are skipped", () => {
    const out = parseToolCalls([
      { id: "1", type: "function", function: { name: "ls" } },
      { id: "2", type: "function", function: { name: "ls", arguments: "" } },
      { id: "3", type: "function", function: { arguments: "{}" } },
      { id: "4", type: "function", function: { name: "   " } }
    ])
    expect(out.map((c) => [c.id, c.arguments])).toEqual([
      ["1", {}],
      ["2", {}]
    ])
  })
})

describe("parseToolCalls: MCP-XML in text", () => {
  test("several blocks in one text, with prose around them", () => {
    const text = [
      "First I search.",
      "<use_mcp_tool>\n<server_name>search</server_name>\n<tool_name>google_search</tool_name>\n<arguments>\n{\"q\": \"a\"}\n</arguments>\n</use_mcp_tool>",
      "Then I run code.",
      "<use_mcp_tool><server_name> tool-python </server_name><tool_name>run_python_code</tool_name><arguments>{\"code_block\": \"1+1\"}</arguments></use_mcp_tool>"
    ].join("\n")
    const out = parseToolCalls(text)
    expect(out.map((c) => [c.id, c.server, c.name, c.arguments, c.format])).toEqual([
      ["toolcall-0", "search", "google_search", { q: "a" }, "mcp-xml"],
      ["toolcall-1", "tool-python", "run_python_code", { code_block: "1+1" }, "mcp-xml"]
    ])
  })

  test("missing closing tags at the end are tolerated; cut-off arguments are not completed", () => {
    const text = `<use_mcp_tool>\n<server_name>search\n<tool_name>google_search</tool_name>\n<arguments>\n{"q": "unterminated`
    const [call] = parseToolCalls(text)
    expect(call).toMatchObject({ id: "toolcall-0", server: "search", name: "google_search", argumentsValid: false, format: "mcp-xml" })
    expect(call?.arguments).toMatchObject({ raw: `{"q": "unterminated` })
    const closed = `<use_mcp_tool><server_name>search<tool_name>google_search</tool_name><arguments>{"q": "done"}`
    expect(parseToolCalls(closed)[0]).toMatchObject({ arguments: { q: "done" }, argumentsValid: true })
  })

  test("a block that is not closed ends where the next block starts", () => {
    const text = `<use_mcp_tool><tool_name>a</tool_name><arguments>{"x": 1}<use_mcp_tool><tool_name>b</tool_name></use_mcp_tool>`
    const out = parseToolCalls(text)
    expect(out.map((c) => [c.name, c.arguments])).toEqual([
      ["a", { x: 1 }],
      ["b", {}]
    ])
    expect(out[0]?.server).toBeUndefined()
  })

  test("tags in any case and with inner whitespace; code fences around the arguments", () => {
    const text = "<USE_MCP_TOOL><Server_Name>s</Server_Name>< tool_name >t</ tool_name ><ARGUMENTS>```json\n{\"k\": \"v\"}\n```</ARGUMENTS></USE_MCP_TOOL>"
    expect(parseToolCalls(text)[0]).toMatchObject({ server: "s", name: "t", arguments: { k: "v" } })
  })

  test("a block cut off before its tool name is skipped; plain text yields nothing", () => {
    expect(parseToolCalls("Let me call <use_mcp_tool>\n<server_name>search")).toEqual([])
    expect(parseToolCalls("no calls here")).toEqual([])
  })

  test("an assistant message with MCP-XML content and no tool_calls", () => {
    const msg = { role: "assistant", content: "<use_mcp_tool><tool_name>t</tool_name></use_mcp_tool>" }
    expect(parseToolCalls(msg).map((c) => c.name)).toEqual(["t"])
  })

  test("the id prefix is configurable", () => {
    expect(parseToolCalls("<use_mcp_tool><tool_name>t</tool_name>", { idPrefix: "x" })[0]?.id).toBe("x0")
  })
})

describe("parseToolCalls: anything else", () => {
  test("unknown shapes yield an empty list", () => {
    for (const input of [null, undefined, 42, true, {}, [], [1, "a"], { output: "x" }, { choices: [] }, { type: "message" }]) {
      expect(parseToolCalls(input)).toEqual([])
    }
  })

  test("a throwing getter does not escape", () => {
    const hostile = {
      get type(): string {
        throw new Error("boom")
      }
    }
    expect(parseToolCalls(hostile)).toEqual([])
  })
})
