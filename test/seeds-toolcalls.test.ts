/**
 * Over HTTP: tool calls written in text run when they name an offered tool,
 * cut-off arguments never run, benign repairs run and show the model the arguments that ran.
 * Judged from what the scripted server received and from marker files on disk.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { RunLoop, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { afterEach, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync, appendFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A tool that appends its `line` argument to marker.txt in a fresh directory: running it leaves a trace. */
const markerTool = () => {
  const dir = mkdtempSync(join(tmpdir(), "lg-seeds-"))
  dirs.push(dir)
  const marker = join(dir, "marker.txt")
  const calls: Array<unknown> = []
  const tool: ToolDefinition = {
    spec: { name: "append", description: "append a line to marker.txt", inputSchema: { type: "object", properties: { line: { type: "string" } } } },
    run: async (input) => {
      calls.push(input)
      appendFileSync(marker, `${String(input["line"])}\n`)
      return { state: "completed", output: "appended" }
    }
  }
  return { tool, marker, calls }
}

const run = (prompt = "Write the marker") =>
  Effect.gen(function* () {
    const result = yield* (yield* RunLoop).run({ sessionId: "s", prompt })
    return { result, stored: yield* (yield* SessionStore).messages("s") }
  })

type Sent = { role: string; content?: unknown; tool_calls?: Array<{ function: { name: string; arguments: string } }> }
const sent = (h: { server: { requests: Array<{ body: any }> } }, i: number): Array<Sent> => h.server.requests[i]!.body.messages

describe("cut-off tool arguments are never run", () => {
  it.live("an unterminated argument string: nothing runs, the model gets the parse error, an incident is filed", () => Effect.gen(function* () {
    const m = markerTool()
    const h = yield* harness([toolCallStream("append", `{"line": "echo hi >> marker.txt`), textStream("I will stop here.")], { tools: [m.tool] })
    const { result } = yield* h.provide(run())
    expect(existsSync(m.marker)).toBe(false)
    expect(m.calls).toEqual([])
    const second = sent(h, 1)
    const toolMsg = second.find((x) => x.role === "tool")
    expect(String(toolMsg?.content)).toContain("cut off")
    expect(String(toolMsg?.content)).toContain("Nothing was executed")
    // The history shows what the model wrote, not a completed command.
    const call = second.find((x) => x.role === "assistant" && x.tool_calls)?.tool_calls?.[0]
    expect(call?.function.arguments).not.toBe(JSON.stringify({ line: "echo hi >> marker.txt" }))
    expect(call?.function.arguments).toContain("echo hi >> marker.txt")
    expect(result.incidents).toContainEqual(expect.objectContaining({ detector: "tool-arguments", action: "refused" }))
  }), 30_000)

  it.live("a benign slip (single quotes, trailing comma) runs, is recorded, and the model sees the arguments that ran", () => Effect.gen(function* () {
    const m = markerTool()
    const h = yield* harness([toolCallStream("append", `{'line': 'hello',}`), textStream("Done.")], { tools: [m.tool] })
    const { result } = yield* h.provide(run())
    expect(readFileSync(m.marker, "utf8")).toBe("hello\n")
    const call = sent(h, 1).find((x) => x.role === "assistant" && x.tool_calls)?.tool_calls?.[0]
    expect(JSON.parse(call!.function.arguments)).toEqual({ line: "hello" })
    expect(result.incidents).toContainEqual(expect.objectContaining({ detector: "repair", action: "repaired", detail: expect.objectContaining({ repairs: ["argument JSON repaired"] }) }))
  }), 30_000)
})

const mcp = (tool: string, args: string, server = "local") =>
  `<use_mcp_tool>\n<server_name>${server}</server_name>\n<tool_name>${tool}</tool_name>\n<arguments>\n${args}\n</arguments>\n</use_mcp_tool>`

describe("tool calls written in text", () => {
  it.live("an MCP-XML call naming an offered tool runs once; the next request shows a real call and its result", () => Effect.gen(function* () {
    const m = markerTool()
    const h = yield* harness([textStream(`Appending now.\n${mcp("append", `{"line": "from-xml"}`)}`), textStream("The marker is written.")], { tools: [m.tool] })
    const { result } = yield* h.provide(run())
    expect(result.report.reason).toBe("final")
    expect(readFileSync(m.marker, "utf8")).toBe("from-xml\n")
    expect(h.server.requests.length).toBe(2)
    const second = sent(h, 1)
    const assistant = second.find((x) => x.role === "assistant")!
    expect(JSON.stringify(assistant.content ?? "")).not.toContain("use_mcp_tool")
    expect(assistant.tool_calls?.[0]?.function.name).toBe("append")
    expect(second.find((x) => x.role === "tool")?.content).toBe("appended")
    expect(result.incidents).toContainEqual(expect.objectContaining({ detector: "text-tool-call", action: "executed" }))
  }), 30_000)

  it.live("a draft inside <think> never runs; tags inside an argument string do not cut the arguments", () => Effect.gen(function* () {
    const m = markerTool()
    const line = "see </arguments> and <use_mcp_tool> in the doc"
    const text = `<think>${mcp("append", `{"line": "draft"}`)}</think>\n${mcp("append", JSON.stringify({ line }))}`
    const h = yield* harness([textStream(text), textStream("Done.")], { tools: [m.tool] })
    yield* h.provide(run())
    expect(readFileSync(m.marker, "utf8")).toBe(`${line}\n`)
  }), 30_000)

  it.live("a text call with cut-off arguments is refused like a structured one", () => Effect.gen(function* () {
    const m = markerTool()
    const h = yield* harness([textStream(`<use_mcp_tool><tool_name>append</tool_name><arguments>{"line": "echo hi >> marker.txt`), textStream("Stopping.")], {
      tools: [m.tool]
    })
    const { result } = yield* h.provide(run())
    expect(existsSync(m.marker)).toBe(false)
    expect(String(sent(h, 1).find((x) => x.role === "tool")?.content)).toContain("cut off")
    expect(result.incidents).toContainEqual(expect.objectContaining({ detector: "tool-arguments", action: "refused" }))
    // Not also told as run: the report and its banners would contradict each other.
    expect(result.incidents.some((i) => i.detector === "text-tool-call" && i.action === "executed")).toBe(false)
  }), 30_000)

  it.live("mode rollback: the same text is leaked markup, rolled back, and nothing runs", () => Effect.gen(function* () {
    const m = markerTool()
    const h = yield* harness([textStream(mcp("append", `{"line": "x"}`)), textStream("No markup this time.")], {
      tools: [m.tool],
      config: (c) => ({ ...c, textToolCalls: { mode: "rollback" } })
    })
    const { result } = yield* h.provide(run())
    expect(existsSync(m.marker)).toBe(false)
    expect(result.report.reason).toBe("final")
    expect(JSON.stringify(sent(h, 1))).not.toContain("use_mcp_tool")
    expect(result.incidents).toContainEqual(expect.objectContaining({ detector: "rollback", detail: expect.objectContaining({ kind: "format-leak" }) }))
  }), 30_000)

  it.live("a text call naming a tool that was not offered does not run (still leaked markup)", () => Effect.gen(function* () {
    const m = markerTool()
    const h = yield* harness([textStream(mcp("rm_everything", `{"line": "x"}`)), textStream("Plain answer.")], { tools: [m.tool] })
    const { result } = yield* h.provide(run())
    expect(existsSync(m.marker)).toBe(false)
    expect(result.incidents.some((i) => i.detector === "text-tool-call" && i.action === "executed")).toBe(false)
  }), 30_000)

  it.live("a wrong MCP server name is fixed at runtime from the system prompt's listing, recorded, and the call runs", () => Effect.gen(function* () {
    const m = markerTool()
    const system = "## Server name: files\n### Tool name: append\n"
    const h = yield* harness([textStream(mcp("append", `{"line": "fixed"}`, "tool-python")), textStream("Done.")], { tools: [m.tool] })
    const result = yield* h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "go", system }) }))
    expect(readFileSync(m.marker, "utf8")).toBe("fixed\n")
    expect(result.incidents).toContainEqual(
      expect.objectContaining({ detector: "repair", detail: expect.objectContaining({ repairs: [`server "tool-python" → "files" for "append"`] }) })
    )
  }), 30_000)
})

describe("a text call naming a tool alias", () => {
  it.live("MCP-XML naming `python` is renamed to run_python_code and run, not rolled back as leaked markup", () => Effect.gen(function* () {
    const ran: Array<unknown> = []
    const pythonTool: ToolDefinition = {
      spec: { name: "run_python_code", description: "run python", inputSchema: { type: "object", properties: { code: { type: "string" } } } },
      run: async (input) => (ran.push(input), { state: "completed", output: "2" })
    }
    const h = yield* harness([textStream(`Computing.\n${mcp("python", `{"code": "print(1+1)"}`)}`), textStream("It is 2.")], { tools: [pythonTool] })
    const { result } = yield* h.provide(run("What is 1+1?"))
    // Renamed, and its arguments repaired as a structured call's would be (`code` → `code_block`).
    expect(ran).toEqual([{ code_block: "print(1+1)", sandbox_id: "default" }])
    expect(result.report.reason).toBe("final")
    expect(result.incidents.some((i) => i.detector === "rollback")).toBe(false)
    expect(result.incidents).toContainEqual(expect.objectContaining({ detector: "text-tool-call", action: "executed" }))
    const call = sent(h, 1).find((x) => x.role === "assistant" && x.tool_calls)?.tool_calls?.[0]
    expect(call?.function.name).toBe("run_python_code")
  }), 30_000)
})

describe("text tool calls in a shadow replay (audit)", () => {
  test("reported as would-execute; the recorded reply is left as it was", async () => {
    const { auditConfig, auditFile } = await import("@loopguard/effect/audit")
    const { mkdtempSync, writeFileSync } = await import("node:fs")
    const dir = mkdtempSync(join(tmpdir(), "lg-seeds-audit-"))
    dirs.push(dir)
    const file = join(dir, "xml.jsonl")
    const lines = [
      { type: "user", text: "list files" },
      { type: "assistant", text: "Listing.", toolCalls: [{ id: "c0", name: "bash", input: { command: "ls" } }], finish: "tool-calls" },
      { type: "tool-result", id: "c0", name: "bash", output: "a.txt", exitCode: 0 },
      { type: "assistant", text: `Again:\n${mcp("bash", `{"command": "ls -la"}`)}`, finish: "stop" },
      { type: "assistant", text: "There is one file.", finish: "stop" }
    ]
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
    const r = await Effect.runPromise(auditFile(file, auditConfig()))
    expect(r._tag).toBe("audited")
    if (r._tag !== "audited") return
    expect(r.incidents).toContainEqual(expect.objectContaining({ step: 1, detector: "text-tool-call", action: "would-execute" }))
    expect(r.steps).toBe(3)
  }, 30_000)
})
