import { describe, expect, test } from "bun:test"
import { availableSkills, HANDOFF_SKILLS, shellWord, skillCommandLine } from "./skills.js"

describe("hand-off skills", () => {
  test("sandbox-safe flags by default; the unguarded ones only in isolated mode", () => {
    expect(HANDOFF_SKILLS.codex.argv("t", "sandboxed")).toEqual(["exec", "--sandbox", "workspace-write", "--ask-for-approval", "never", "t"])
    expect(HANDOFF_SKILLS.claude.argv("t", "sandboxed")).toEqual(["-p", "t", "--permission-mode", "acceptEdits"])
    expect(HANDOFF_SKILLS.codex.argv("t", "isolated")).toContain("--yolo")
    expect(HANDOFF_SKILLS.claude.argv("t", "isolated")).toContain("--dangerously-skip-permissions")
    for (const s of Object.values(HANDOFF_SKILLS)) expect(s.argv("t", "sandboxed").join(" ")).not.toMatch(/yolo|dangerously/)
  })
  test("offered only for commands that resolve", () => {
    expect(availableSkills((c) => c === "claude").map((s) => s.name)).toEqual(["claude-code"])
    expect(availableSkills(() => false)).toEqual([])
  })
  test("the command line quotes every word, so the task never reaches the shell as code", () => {
    expect(shellWord(`it's $(rm -rf ~)`)).toBe(`'it'\\''s $(rm -rf ~)'`)
    expect(skillCommandLine(HANDOFF_SKILLS.claude, "a; b", "sandboxed")).toBe(`'claude' '-p' 'a; b' '--permission-mode' 'acceptEdits'`)
  })
})
