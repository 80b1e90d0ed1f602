import { describe, expect, test } from "bun:test"
import { AGENT_ROLES, REMINDER_TEMPLATE_KINDS, REMINDERS, reminderText } from "./reminders.js"

describe("reminders", () => {
  test("every template kind has a non-empty text for every role", () => {
    expect(Object.keys(REMINDERS).sort()).toEqual([...REMINDER_TEMPLATE_KINDS].sort())
    for (const kind of REMINDER_TEMPLATE_KINDS) {
      for (const role of AGENT_ROLES) expect(reminderText(kind, role).trim().length).toBeGreaterThan(20)
    }
  })

  test("think-only and invalid tell each role its own way out", () => {
    for (const kind of ["think-only", "invalid"] as const) {
      expect(reminderText(kind, "main")).toMatch(/final answer|call a tool/)
      expect(reminderText(kind, "subagent")).toContain("return your result to the parent")
      expect(reminderText(kind, "checkpoint")).toContain("CHECKPOINT_COMPLETE")
      expect(reminderText(kind, "main")).not.toContain("CHECKPOINT_COMPLETE")
    }
  })

  test("the escalating reminders carry their key instructions", () => {
    expect(reminderText("length-continue", "main")).toMatch(/continue exactly from where you stopped/i)
    expect(reminderText("length-continue", "main")).toMatch(/do not restate/i)
    expect(reminderText("text-repeat-remind", "main")).toMatch(/rephrase.*different tool.*where you are stuck/is)
    expect(reminderText("text-repeat-replan", "main")).toContain("You MUST completely replan")
    const strong = reminderText("text-loop-strong", "main")
    expect(strong).toMatch(/abandon/i)
    expect(strong).toMatch(/why it failed/)
    expect(strong).toContain("ask the user for help")
    expect(strong).toMatch(/session will be terminated/)
    expect(reminderText("text-loop-strong", "subagent")).toContain("ask the parent agent for help")
    expect(reminderText("repeated-action", "main")).toMatch(/repeating the same action.*change your approach/is)
    expect(reminderText("soft-cap", "main")).toMatch(/maximum steps reached.*text only/is)
    expect(reminderText("breaker-degrade", "main")).toMatch(/restate the goal.*another method/is)
    expect(reminderText("text-tool-call", "main")).toMatch(/structured tool-calling interface/)
    expect(reminderText("structured-output", "main")).toMatch(/structured-output tool/)
    expect(reminderText("invalid", "main")).toMatch(/empty output/)
  })

  test("a detail is appended on its own paragraph, an empty one is ignored", () => {
    const base = reminderText("breaker-degrade", "main")
    expect(reminderText("breaker-degrade", "main", { detail: "bash failed 3 times" })).toBe(`${base}\n\nbash failed 3 times`)
    expect(reminderText("breaker-degrade", "main", { detail: "" })).toBe(base)
  })
})
