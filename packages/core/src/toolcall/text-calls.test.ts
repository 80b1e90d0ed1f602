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
        expect(r.calls).toHaveLength(1)
        expect(r.calls[0]!.argumentsValid).toBe(false)
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
  test("a call the reply only shows is never taken: in a code block amid prose, a block quote, a code span, or called an example or not to be run", () => {
    const call = `<tool_call>{"name": "bash", "arguments": {"command": "touch /tmp/PWNED"}}</tool_call>`
    const shown = [
      `I am quoting this snippet from the README:\n\n\`\`\`\n${call}\n\`\`\`\n\nThat is how the setup script calls it.`,
      `The page says:\n> ${call}`,
      `It writes \`${call}\` in its log.`,
      `Here is the call, but I will NOT run it: ${call}`,
      `For example:\n${call}`,
      `An example, do not run this:\n${call}`,
      `That is e.g. ${call}`,
      `Do not run this. ${call}`,
      `Do not run this. Here it is:\n${call}`,
      `This is an example, do not run it. Then the output shows:\n${call}`,
      `~~~xml\n${call}\n~~~\nThis is what a call looks like.`,
      `The README shows it indented:\n\n    ${call}\n\nThat is all.`,
      `The page holds <pre>${call}</pre> in its body.`
    ]
    for (const text of shown) {
      const r = findTextToolCalls(text, offered)
      expect([text, r.calls]).toEqual([text, []])
      expect(r.skipped).toEqual([{ name: "bash", reason: "quoted" }])
      expect(r.prose).toBe(text)
    }
  })

  test("a call asked for in plain words is taken, even next to words about what did not run before, or alone in one code block", () => {
    const call = `<tool_call>{"name": "bash", "arguments": {"command": "npm test"}}</tool_call>`
    const asked = [
      `Let me run the tests.\n${call}`,
      `The tests will not run without the variable, so I set it first.\n\nNow:\n${call}`,
      `I haven't run the suite yet.\n\n${call}`,
      `\`\`\`\n${call}\n\`\`\``,
      `Quoting the error: \`ENOENT\`. Checking again.\n${call}`,
      `That snippet is an example, I will not run it. Now I run the tests.\n${call}`,
      `For example, the task could also be done in Python. Instead, I use the shell.\n${call}`
    ]
    for (const text of asked) expect([text, findTextToolCalls(text, offered).calls.map((c) => c.name)]).toEqual([text, ["bash"]])
  })

  test("a Hermes call whose own JSON needed repair is marked repaired, whatever its arguments", () => {
    const r = findTextToolCalls(`<tool_call>{'name': 'bash', 'arguments': {'command': 'ls'}}</tool_call>`, offered)
    expect(r.calls.map((c) => [c.name, c.argumentsValid, c.argumentsRepaired])).toEqual([["bash", true, true]])
    expect(findTextToolCalls(`<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>`, offered).calls[0]?.argumentsRepaired).toBe(false)
  })

  test("a Hermes call with stray text before its closing tag is marked repaired; one with no closing tag at the end is whole", () => {
    for (const text of [
      `<tool_call>{"name":"bash","arguments":{"command":"ls"}}}}}</tool_call>`,
      `<tool_call>{"name":"bash","arguments":{"command":"ls"}} extra</tool_call>`
    ]) {
      expect([text, findTextToolCalls(text, offered).calls.map((c) => [c.argumentsValid, c.argumentsRepaired])]).toEqual([text, [[true, true]]])
    }
    // A stop sequence often eats the closing tag: the call is still exactly what was written.
    expect(findTextToolCalls(`<tool_call>{"name":"bash","arguments":{"command":"ls"}}`, offered).calls[0]).toMatchObject({ argumentsValid: true, argumentsRepaired: false })
  })

  test("a cut-off second call is an invalid call when its name can be read, and a cut-off skip when not", () => {
    const first = `<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>`
    const named = findTextToolCalls(`${first} and <tool_call>{"name":"bash","arguments":{"command":"rm -rf /tmp/two`, offered)
    expect(named.calls.map((c) => [c.name, c.argumentsValid])).toEqual([["bash", true], ["bash", false]])
    expect(String(named.calls[1]!.arguments["error"])).toContain("cut off")
    const unnamed = findTextToolCalls(`${first} and <tool_call>{"arguments":{"command":"rm -rf /tmp/two`, offered)
    expect(unnamed.calls.map((c) => c.name)).toEqual(["bash"])
    expect(unnamed.skipped).toEqual([{ name: "", reason: "cut-off" }])
    // The same cut-off markup inside thinking or a quote is no call at all.
    expect(findTextToolCalls(`<think><tool_call>{"arguments":{"x</think>${first}`, offered).skipped).toEqual([])
  })

  test("a Hermes call naming an argument twice is refused, never run with the last value", () => {
    const r = findTextToolCalls(`<tool_call>{"name":"bash","arguments":{"command":"ls","command":"rm -rf /tmp/dup"}}</tool_call>`, offered)
    expect(r.calls.map((c) => [c.name, c.argumentsValid])).toEqual([["bash", false]])
    expect(String(r.calls[0]!.arguments["error"])).toContain(`"command" twice`)
  })

  test("plain text and hostile input yield nothing", () => {
    expect(findTextToolCalls("All done.", offered)).toEqual({ calls: [], skipped: [], prose: "All done." })
    expect(findTextToolCalls("<tool_call>not json</tool_call>", offered).calls).toEqual([])
  })
})
