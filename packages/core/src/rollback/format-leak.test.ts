import { describe, expect, test } from "bun:test"
import { detectFormatLeak } from "./format-leak.js"

describe("detectFormatLeak", () => {
  test("MCP tags leaked as text, opening or closing, any case, spaced", () => {
    for (const [text, marker] of [
      ["<use_mcp_tool>\n<server_name>x</server_name>", "use_mcp_tool"],
      ["I will call </use_mcp_tool>", "use_mcp_tool"],
      ["< SERVER_NAME >search", "server_name"],
      ["<tool_name>google_search</tool_name>", "tool_name"],
      ["<arguments>{}</arguments>", "arguments"]
    ] as const) {
      expect(detectFormatLeak(text, 0)?.marker).toBe(marker)
    }
  })

  test("other families' markers come from classify/markup", () => {
    expect(detectFormatLeak(`<invoke name="bash">`, 0)).toMatchObject({ marker: "invoke" })
    expect(detectFormatLeak("<tool_call>{\"name\": \"x\"}</tool_call>", 0)).toMatchObject({ marker: "tool_call" })
  })

  test("no leak when the reply made a structured call, or the text is clean", () => {
    expect(detectFormatLeak("<use_mcp_tool>", 1)).toBeNull()
    expect(detectFormatLeak("The answer is 42. Use <b>bold</b> for emphasis.", 0)).toBeNull()
    expect(detectFormatLeak("", 0)).toBeNull()
  })

  test("markup the reply only quotes is no leak: a code block amid prose, a block quote, a code span; a reply of one code block still leaks", () => {
    const call = `<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>`
    expect(detectFormatLeak(`The README shows:\n\n\`\`\`\n${call}\n\`\`\`\n\nThat is its format.`, 0)).toBeNull()
    expect(detectFormatLeak(`The page says:\n> ${call}`, 0)).toBeNull()
    expect(detectFormatLeak(`It logs \`<tool_call>\` lines.`, 0)).toBeNull()
    expect(detectFormatLeak(`\`\`\`\n${call}\n\`\`\``, 0)).toMatchObject({ marker: "tool_call" })
    expect(detectFormatLeak(`Quoting \`x\`, then: ${call}`, 0)).toMatchObject({ marker: "tool_call" })
  })
})
