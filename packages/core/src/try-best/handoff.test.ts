import { describe, expect, test } from "bun:test"
import { buildHandoffMessage, continueInstruction, handoffTargets, modelFamily, type HandoffBrief } from "./handoff.js"

const everything = () => true

describe("handoffTargets", () => {
  test.each(["openai/gpt-4o", "gpt-5", "o3", "o4-mini", "codex-mini", "openai/o1-preview", "azure/gpt-4.1", "ft:gpt-4o:acme", "openrouter/openai/gpt-oss-120b", "chatgpt-4o-latest"])(
    "openai family %s → Claude Code only",
    (model) => {
      expect(modelFamily(model)).toBe("openai")
      expect(handoffTargets(model, everything)).toEqual(["claude"])
    }
  )

  test.each(["anthropic/claude-sonnet-4-5", "claude-3-5-sonnet-20241022", "bedrock/us.anthropic.claude-3-haiku", "vertex/claude-opus-4@20250514"])(
    "anthropic family %s → Codex only",
    (model) => {
      expect(modelFamily(model)).toBe("anthropic")
      expect(handoffTargets(model, everything)).toEqual(["codex"])
    }
  )

  test.each(["deepseek/deepseek-chat", "openai-compatible/qwen3-coder", "google/gemini-3-pro-preview", "mistral/codestral-latest", "llama-3.1-70b", "kimi-k2"])(
    "other family %s → both",
    (model) => {
      expect(modelFamily(model)).toBe("other")
      expect(handoffTargets(model, everything)).toEqual(["codex", "claude"])
    }
  )

  test("a target is offered only when its command is installed", () => {
    const onlyClaude = (cmd: string) => cmd === "claude"
    expect(handoffTargets("deepseek-chat", onlyClaude)).toEqual(["claude"])
    expect(handoffTargets("claude-sonnet-4", onlyClaude)).toEqual([])
    expect(handoffTargets("deepseek-chat", () => false)).toEqual([])
    const asked: Array<string> = []
    handoffTargets("qwen", (cmd) => (asked.push(cmd), true))
    expect(asked.sort()).toEqual(["claude", "codex"])
  })

  test("an id naming both families gets neither harness", () => {
    expect(handoffTargets("proxy/gpt-4o-vs-claude-3", everything)).toEqual([])
  })
})

describe("buildHandoffMessage", () => {
  const brief: HandoffBrief = {
    target: "codex",
    goal: "Make the parser accept trailing commas.",
    workspaceState: "src/parse.ts modified; 3 tests failing in test/parse.test.ts",
    failedApproach: "Patched the tokenizer three times with the same regex change.",
    incident: { detail: "edit_repeat: the 3rd near-identical edit of src/parse.ts" },
    validation: ["bun test", "npx tsc -b"]
  }

  test("names the authorised harness, its role, the full brief, and the duties", () => {
    const text = buildHandoffMessage(brief)
    expect(text).toContain("authorised Codex CLI")
    expect(text).toContain("primary executor")
    expect(text).toContain("codex exec")
    expect(text).toContain("Never pass credentials")
    expect(text).toMatch(/Supervise Codex CLI until it finishes/)
    expect(text).toContain("report the outcome to the user")
    for (const part of [brief.goal, brief.workspaceState, brief.failedApproach, brief.incident.detail, "- bun test", "- npx tsc -b"]) {
      expect(text).toContain(part)
    }
  })

  test("for Claude Code names that harness and its command", () => {
    const text = buildHandoffMessage({ ...brief, target: "claude", validation: "run the tests" })
    expect(text).toContain("authorised Claude Code CLI (command `claude`)")
    expect(text).toContain("claude -p")
    expect(text).toContain("run the tests")
    expect(text).not.toContain("Codex")
  })

  test("never forwards credentials", () => {
    const text = buildHandoffMessage({
      ...brief,
      workspaceState: "uses OPENAI_API_KEY=sk-proj-Abcdefghijklmnop1234567890 and db pw hunter2hunter2",
      env: { DB_PW: "hunter2hunter2" }
    })
    expect(text).not.toContain("sk-proj-Abcdefghijklmnop1234567890")
    expect(text).not.toContain("hunter2hunter2")
    expect(text).toContain("[REDACTED]")
  })
})

describe("continueInstruction", () => {
  test("asks to drop the approach, inspect, explain, and change strategy", () => {
    const text = continueInstruction({ detail: "bash_retry: `npm test` has failed 3 times" })
    expect(text).toContain("bash_retry: `npm test` has failed 3 times")
    expect(text).toMatch(/Drop the approach/)
    expect(text).toMatch(/Inspect the workspace/)
    expect(text).toMatch(/Explain briefly why you were stuck/)
    expect(text).toMatch(/substantially different strategy/)
  })
})
