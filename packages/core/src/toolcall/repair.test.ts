import { describe, expect, test } from "bun:test"
import { DEFAULT_REPAIR_TABLE, repairToolCall } from "./repair.js"
import type { RepairTable } from "./repair.js"
import type { ParsedToolCall } from "./tool-call.js"

const call = (name: string, args: Record<string, unknown>, server?: string): ParsedToolCall => ({
  id: "c1",
  ...(server !== undefined ? { server } : {}),
  name,
  arguments: args,
  argumentsValid: true,
  argumentsRepaired: false,
  format: "mcp-xml"
})

const serverMap = { run_python_code: "tool-python", google_search: "search", scrape_and_extract_info: "jina" }

describe("repairToolCall with the default table", () => {
  test("a correct call is returned untouched, with no repairs", () => {
    const c = call("run_python_code", { code_block: "1", sandbox_id: "s1" }, "tool-python")
    const r = repairToolCall(c, DEFAULT_REPAIR_TABLE, serverMap)
    expect(r.repairs).toEqual([])
    expect(r.call).toBe(c)
  })

  test("argument alias and default for run_python_code, each listed", () => {
    const r = repairToolCall(call("run_python_code", { code: "print(1)" }))
    expect(r.call.arguments).toEqual({ code_block: "print(1)", sandbox_id: "default" })
    expect(r.repairs).toEqual([`argument "code" → "code_block"`, `default "sandbox_id" = "default"`])
  })

  test("several wrong names for one argument: the first present is moved, the rest are left alone", () => {
    const r = repairToolCall(call("scrape_and_extract_info", { url: "u", description: "d", introduction: "i" }))
    expect(r.call.arguments).toEqual({ url: "u", info_to_extract: "d", introduction: "i" })
    expect(r.repairs).toEqual([`argument "description" → "info_to_extract"`])
  })

  test("an alias never overwrites the argument the model named correctly", () => {
    const r = repairToolCall(call("run_python_code", { code: "old", code_block: "right", sandbox_id: "x" }))
    expect(r.call.arguments).toEqual({ code: "old", code_block: "right", sandbox_id: "x" })
    expect(r.repairs).toEqual([])
  })

  test("null arguments are dropped before aliases and defaults apply", () => {
    const r = repairToolCall(call("run_python_code", { code: "x", code_block: null, sandbox_id: null, note: null }))
    expect(r.call.arguments).toEqual({ code_block: "x", sandbox_id: "default" })
    expect(r.repairs).toEqual([
      `dropped null argument "code_block"`,
      `dropped null argument "sandbox_id"`,
      `dropped null argument "note"`,
      `argument "code" → "code_block"`,
      `default "sandbox_id" = "default"`
    ])
  })

  test("tool name alias, then the rules of the right tool", () => {
    const r = repairToolCall(call("python", { code: "1" }, "tool-python"), DEFAULT_REPAIR_TABLE, serverMap)
    expect(r.call.name).toBe("run_python_code")
    expect(r.call.arguments).toEqual({ code_block: "1", sandbox_id: "default" })
    expect(r.repairs[0]).toBe(`tool name "python" → "run_python_code"`)
  })

  test("no tool alias when the system prompt lists the name as a real tool", () => {
    const r = repairToolCall(call("python", { code: "1" }, "py"), DEFAULT_REPAIR_TABLE, { python: "py" })
    expect(r.call.name).toBe("python")
    expect(r.repairs).toEqual([])
  })

  test("a wrong server name is fixed from the system prompt's map", () => {
    const r = repairToolCall(call("google_search", { q: "x" }, "tool-python"), DEFAULT_REPAIR_TABLE, serverMap)
    expect(r.call.server).toBe("search")
    expect(r.repairs).toEqual([`server "tool-python" → "search" for "google_search"`])
  })

  test("servers of tools the map does not know are left alone; a missing server is only filled when asked", () => {
    expect(repairToolCall(call("other", {}, "whatever"), DEFAULT_REPAIR_TABLE, serverMap).repairs).toEqual([])
    const noServer = call("google_search", { q: "x" })
    expect(repairToolCall(noServer, DEFAULT_REPAIR_TABLE, serverMap).call.server).toBeUndefined()
    const filled = repairToolCall(noServer, { ...DEFAULT_REPAIR_TABLE, fillMissingServer: true }, serverMap)
    expect(filled.call.server).toBe("search")
    expect(filled.repairs).toEqual([`server set to "search" for "google_search"`])
  })

  test("unparsed arguments keep {error, raw}; name and server are still fixed", () => {
    const broken: ParsedToolCall = { ...call("python", {}, "bad"), arguments: { error: "bad json", raw: "{" }, argumentsValid: false }
    const r = repairToolCall(broken, DEFAULT_REPAIR_TABLE, serverMap)
    expect(r.call).toMatchObject({ name: "run_python_code", server: "tool-python", arguments: { error: "bad json", raw: "{" } })
    expect(r.repairs).toHaveLength(2)
  })

  test("the input call is not mutated", () => {
    const args = { code: "1", x: null }
    const c = call("run_python_code", args)
    repairToolCall(c)
    expect(args).toEqual({ code: "1", x: null })
  })
})

describe("repairToolCall with a custom table", () => {
  const table: RepairTable = {
    toolNameAliases: { search: "web_search" },
    tools: { web_search: { aliases: { query: "q" }, defaults: { limit: 5, region: "us" } } },
    dropNullArguments: false,
    fixServerNames: false,
    fillMissingServer: false
  }

  test("the table drives every repair", () => {
    const r = repairToolCall(call("search", { query: "x", region: null }, "wrong"), table, { web_search: "right" })
    expect(r.call).toMatchObject({ name: "web_search", server: "wrong", arguments: { q: "x", region: null, limit: 5 } })
    expect(r.repairs).toEqual([`tool name "search" → "web_search"`, `argument "query" → "q"`, `default "limit" = 5`])
  })

  test("tools named like Object.prototype keys find no rule", () => {
    for (const name of ["constructor", "toString", "__proto__"]) {
      expect(repairToolCall(call(name, { a: 1 }), DEFAULT_REPAIR_TABLE, {}).repairs).toEqual([])
    }
  })
})
