import { describe, expect, test } from "bun:test"
import { findMcpXmlBlocks } from "./mcp-xml.js"
import { findTextToolCalls } from "./text-calls.js"

const mcp = (tool: string, args: string, server = "local") =>
  `<use_mcp_tool>\n<server_name>${server}</server_name>\n<tool_name>${tool}</tool_name>\n<arguments>\n${args}\n</arguments>\n</use_mcp_tool>`
const offered = new Set(["bash", "write"])

describe("findTextToolCalls", () => {
  test("an MCP-XML call naming an offered tool is taken; the prose around it stays", () => {
    const r = findTextToolCalls(`I will list the files.\n${mcp("bash", `{"command": "ls"}`)}\nThen report.`, offered)
    expect(r.calls).toEqual([
      { id: "textcall-0", server: "local", name: "bash", arguments: { command: "ls" }, argumentsValid: true, argumentsRepaired: false, format: "mcp-xml" }
    ])
    expect(r.prose).toBe("I will list the files.\n\nThen report.")
    expect(r.skipped).toEqual([])
  })
  test("a Hermes <tool_call> JSON call is taken, arguments as object or as a JSON string", () => {
    const r = findTextToolCalls(
      `<tool_call>\n{"name": "bash", "arguments": {"command": "pwd"}}\n</tool_call><tool_call>{"name": "write", "arguments": "{\\"path\\": \\"a\\"}"}</tool_call>`,
      offered
    )
    expect(r.calls.map((c) => [c.name, c.arguments, c.format])).toEqual([
      ["bash", { command: "pwd" }, "tool-call-tag"],
      ["write", { path: "a" }, "tool-call-tag"]
    ])
    expect(r.prose).toBe("")
  })
  test("a call naming a tool that was not offered is skipped and its markup stays in the text", () => {
    const text = mcp("google_search", `{"q": "x"}`)
    const r = findTextToolCalls(text, offered)
    expect(r.calls).toEqual([])
    expect(r.skipped).toEqual([{ name: "google_search", reason: "not-offered" }])
    expect(r.prose).toBe(text)
  })
  test("a draft inside <think> is never taken, closed or not; the one after it is", () => {
    const text = `<think>maybe ${mcp("bash", `{"command": "rm -rf build"}`)}</think>\n${mcp("bash", `{"command": "ls"}`)}`
    const r = findTextToolCalls(text, offered)
    expect(r.calls.map((c) => c.arguments)).toEqual([{ command: "ls" }])
    expect(r.skipped).toEqual([{ name: "bash", reason: "thinking" }])
    expect(findTextToolCalls(`<think>draft ${mcp("bash", `{"command": "x"}`)}`, offered).calls).toEqual([])
  })
  test("XML tags inside an argument string do not cut the arguments short", () => {
    const content = `<use_mcp_tool><tool_name>bash</tool_name><arguments>{}</arguments></use_mcp_tool> and </arguments>`
    const text = mcp("write", JSON.stringify({ path: "doc.md", content }))
    const r = findTextToolCalls(text, offered)
    expect(r.calls).toHaveLength(1)
    expect(r.calls[0]).toMatchObject({ name: "write", arguments: { path: "doc.md", content }, argumentsValid: true })
    expect(findMcpXmlBlocks(text)).toHaveLength(1)
  })
  test("cut-off arguments are found but marked invalid (they must not run)", () => {
    const r = findTextToolCalls(`<use_mcp_tool><tool_name>bash</tool_name><arguments>{"command": "echo hi >> marker.txt`, offered)
    expect(r.calls[0]).toMatchObject({ name: "bash", argumentsValid: false })
  })
  test("a bracket closed out of order ends nothing: the arguments as written are refused, never run shortened", () => {
    for (const args of [`{"command": "rm -rf build/"], "dry_run": true}`, `{"command": "git push origin main"], "args": ["--dry-run"]}`, `{"command":"touch /tmp/ran"], "cwd": "/tm`]) {
      for (const text of [mcp("bash", args), `<tool_call>{"name": "bash", "arguments": ${args}}</tool_call>`]) {
        const r = findTextToolCalls(text, offered)
        expect(r.calls).toHaveLength(text.startsWith("<tool_call>") ? 0 : 1)
        for (const call of r.calls) expect(call.argumentsValid).toBe(false)
      }
    }
    // An early `}` in a complete field: the same.
    expect(findTextToolCalls(mcp("bash", `{"command":"rm -rf a" }, "dry_run": true}`), offered).calls[0]).toMatchObject({ argumentsValid: false })
  })
  test("a reply that is only a Chat Completions JSON shape (fenced or not) is taken; JSON inside prose is not", () => {
    const msg = { role: "assistant", tool_calls: [{ id: "x", type: "function", function: { name: "bash", arguments: `{"command": "ls"}` } }] }
    const r = findTextToolCalls("```json\n" + JSON.stringify(msg) + "\n```", offered)
    expect(r.calls.map((c) => [c.name, c.arguments, c.format])).toEqual([["bash", { command: "ls" }, "chat"]])
    expect(r.prose).toBe("")
    expect(findTextToolCalls(`Here is an example: ${JSON.stringify(msg)}`, offered).calls).toEqual([])
    expect(findTextToolCalls(`{"answer": 42}`, offered).calls).toEqual([])
  })
  test("an MCP call whose tool is offered under its server-qualified name runs under that name", () => {
    const r = findTextToolCalls(mcp("run_python_code", `{"code_block": "1"}`, "tool-python"), new Set(["tool-python-run_python_code"]))
    expect(r.calls.map((c) => [c.server, c.name])).toEqual([["tool-python", "tool-python-run_python_code"]])
  })
  test("plain text and hostile input yield nothing", () => {
    expect(findTextToolCalls("All done.", offered)).toEqual({ calls: [], skipped: [], prose: "All done." })
    expect(findTextToolCalls("<tool_call>not json</tool_call>", offered).calls).toEqual([])
  })
})
