import { describe, expect, test } from "bun:test"
import { handoffRefusal, parseOnPause, pauseChoices, refusalOf } from "./choices.js"
import { askChoice, formatPause, parseAnswer } from "./pause-prompt.js"
import { commandsInstalled } from "./path-lookup.js"
import type { PausedIncident } from "./paused-incident.js"

const both = commandsInstalled("codex", "claude")

describe("pauseChoices", () => {
  test("an openai model is offered Claude Code only; Codex is refused as the same family", () => {
    const c = pauseChoices("gpt-4o", both)
    expect(c.offered).toEqual(["stop", "continue", "handoff:claude"])
    expect(c.unavailable).toHaveLength(1)
    expect(c.unavailable[0]!.choice).toBe("handoff:codex")
    expect(c.unavailable[0]!.reason).toContain("same family (OpenAI)")
  })

  test("an anthropic model is offered Codex only", () => {
    const c = pauseChoices("anthropic/claude-sonnet-4", both)
    expect(c.offered).toEqual(["stop", "continue", "handoff:codex"])
    expect(refusalOf("handoff:claude", c)).toContain("same family (Anthropic)")
  })

  test("another family is offered both, each only when its command is installed", () => {
    expect(pauseChoices("deepseek-chat", both).offered).toEqual(["stop", "continue", "handoff:codex", "handoff:claude"])
    const onlyClaude = pauseChoices("deepseek-chat", commandsInstalled("claude"))
    expect(onlyClaude.offered).toEqual(["stop", "continue", "handoff:claude"])
    expect(refusalOf("handoff:codex", onlyClaude)).toContain("`codex` was not found on PATH")
    expect(pauseChoices("deepseek-chat", commandsInstalled()).offered).toEqual(["stop", "continue"])
  })

  test("the family reason wins over a missing command", () => {
    expect(handoffRefusal("codex", "gpt-5", commandsInstalled())).toContain("same family")
    expect(handoffRefusal("claude", "gpt-5", commandsInstalled())).toContain("not found on PATH")
    expect(handoffRefusal("claude", "gpt-5", both)).toBeNull()
  })

  test("stop and continue are always available", () => {
    const c = pauseChoices("x", commandsInstalled())
    expect(refusalOf("stop", c)).toBeNull()
    expect(refusalOf("continue", c)).toBeNull()
  })
})

test("parseOnPause accepts the five policies and nothing else", () => {
  expect(parseOnPause(" Handoff:Claude ")).toBe("handoff:claude")
  expect(parseOnPause("ask")).toBe("ask")
  expect(parseOnPause("handoff")).toBeNull()
  expect(parseOnPause("handoff:gemini")).toBeNull()
})

describe("answers to ask", () => {
  const c = pauseChoices("gpt-4o", both)

  test("a menu number, a name or a bare target name", () => {
    expect(parseAnswer("1", c)).toBe("stop")
    expect(parseAnswer("3", c)).toBe("handoff:claude")
    expect(parseAnswer("4", c)).toBeNull()
    expect(parseAnswer("0", c)).toBeNull()
    expect(parseAnswer(" Continue ", c)).toBe("continue")
    expect(parseAnswer("claude", c)).toBe("handoff:claude")
    expect(parseAnswer("codex", c)).toBeNull()
    expect(parseAnswer("", c)).toBeNull()
  })

  test("asks again after a wrong answer, explaining a refused target", async () => {
    const answers = ["codex", "nonsense", "claude"]
    const warned: Array<string> = []
    const got = await askChoice(async () => answers.shift() ?? null, c, 3, (l) => warned.push(l))
    expect(got).toBe("handoff:claude")
    expect(warned[0]).toContain("same family")
    expect(warned[1]).toContain("not a choice")
  })

  test("end of input, or too many wrong answers, means stop", async () => {
    const warned: Array<string> = []
    expect(await askChoice(async () => null, c, 3, (l) => warned.push(l))).toBe("stop")
    let asked = 0
    expect(await askChoice(async () => (asked++, "maybe"), c, 2, (l) => warned.push(l))).toBe("stop")
    expect(asked).toBe(2)
    expect(warned.at(-1)).toContain("no valid answer after 2 tries")
  })
})

test("formatPause lists the offered choices numbered and the others with their reason", () => {
  const incident: PausedIncident = { kind: "edit_repeat", detector: "edit-repeat", step: 7, detail: "edit_repeat: src/a.ts edited 3 times (step 5, step 7)", evidence: {} }
  const lines = formatPause(incident, pauseChoices("gpt-4o", commandsInstalled()))
  // Counted from 1, as the status lines above the menu are.
  expect(lines[0]).toBe("⏸ try-best paused the run at step 8: edit_repeat: src/a.ts edited 3 times (step 6, step 8)")
  expect(lines.filter((l) => /^\s+\d\. /.test(l))).toHaveLength(2)
  expect(lines.join("\n")).toMatch(/handoff:claude\s+.*not found on PATH/)
})
