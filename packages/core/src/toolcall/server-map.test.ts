import { describe, expect, test } from "bun:test"
import { serverMapFromSystemPrompt } from "./server-map.js"

describe("serverMapFromSystemPrompt", () => {
  test("MiroThinker's listing: servers with their tools, descriptions in between ignored", () => {
    const prompt = [
      "You have access to these tools.",
      "## Server name: tool-python",
      "### Tool name: run_python_code",
      "Description: runs Python. Server name is not a label here",
      "### Tool name: create_sandbox",
      "## Server name: search_and_scrape_webpage",
      "### Tool name: google_search",
      "Input JSON schema: {\"q\": \"string\"}"
    ].join("\n")
    expect(serverMapFromSystemPrompt(prompt)).toEqual({
      run_python_code: "tool-python",
      create_sandbox: "tool-python",
      google_search: "search_and_scrape_webpage"
    })
  })

  test("variants: bullets, numbering, bold, backticks, quotes, label spellings, fullwidth colon, CRLF", () => {
    const prompt = [
      "# server_name: `alpha`",
      "- **Tool name:** `one` (does things)",
      "1. tool-name: \"two\"",
      "**SERVER NAME**： beta\r",
      "* Tool Name: three\r"
    ].join("\n")
    expect(serverMapFromSystemPrompt(prompt)).toEqual({ one: "alpha", two: "alpha", three: "beta" })
  })

  test("tools before any server line are ignored", () => {
    expect(serverMapFromSystemPrompt("### Tool name: orphan\n## Server name: s\n### Tool name: t")).toEqual({ t: "s" })
  })

  test("a tool listed under two servers is ambiguous and left out; listed twice under one is kept", () => {
    const prompt = "## Server name: a\n### Tool name: x\n### Tool name: y\n## Server name: b\n### Tool name: x\n## Server name: a\n### Tool name: y"
    expect(serverMapFromSystemPrompt(prompt)).toEqual({ y: "a" })
  })

  test("a tool named like an Object.prototype key is an ordinary own key", () => {
    const map = serverMapFromSystemPrompt("## Server name: s\n### Tool name: __proto__\n### Tool name: constructor")
    expect(Object.keys(map).sort()).toEqual(["__proto__", "constructor"])
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype)
  })

  test("no listing, no map", () => {
    expect(serverMapFromSystemPrompt("")).toEqual({})
    expect(serverMapFromSystemPrompt("Use the tools wisely.")).toEqual({})
  })
})
