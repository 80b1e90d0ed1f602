import { DEFAULT_CONFIG, type LoopguardConfig } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { chooseShell, parseShellAnswer, toolsFor } from "./shell-choice.js"

const config = (tools: Partial<LoopguardConfig["tools"]>): LoopguardConfig => ({ ...DEFAULT_CONFIG, tools: { ...DEFAULT_CONFIG.tools, ...tools } })

describe("the chat's shell", () => {
  test("answers: y runs, n is no shell, Enter or anything else asks each time, end of input is no shell", () => {
    expect(["y", "YES", "n", "no", "", "a", "maybe"].map(parseShellAnswer)).toEqual(["run", "run", "off", "off", "approve", "approve", "approve"])
    expect(parseShellAnswer(null)).toBe("off")
  })

  test("ask: asked only on a terminal; without one it runs as before", async () => {
    const asked: Array<string> = []
    const ask = async (q: string) => (asked.push(q), "n")
    expect(await chooseShell(config({}), "/w", true, ask)).toBe("off")
    expect(asked[0]).toContain("/w with your rights")
    expect(await chooseShell(config({}), "/w", false, ask)).toBe("run")
    expect(asked).toHaveLength(1)
  })

  test("a chosen mode or --approve-commands is never asked about", async () => {
    const ask = async () => {
      throw new Error("asked")
    }
    expect(await chooseShell(config({ chatShell: "off" }), "/w", true, ask)).toBe("off")
    expect(await chooseShell(config({ chatShell: "ask", approveCommands: true }), "/w", true, ask)).toBe("approve")
  })

  test("off leaves out bash; run and approve keep it", () => {
    const names = (mode: "run" | "approve" | "off") => toolsFor(mode, "/tmp", DEFAULT_CONFIG, "OPENAI_API_KEY").map((t) => t.spec.name)
    expect(names("off")).toEqual(["read_file", "list_dir"])
    expect(names("run")).toContain("bash")
    expect(toolsFor("approve", "/tmp", DEFAULT_CONFIG, "OPENAI_API_KEY").find((t) => t.spec.name === "bash")?.authorize).toBeDefined()
    expect(toolsFor("run", "/tmp", DEFAULT_CONFIG, "OPENAI_API_KEY").find((t) => t.spec.name === "bash")?.authorize).toBeUndefined()
  })
})
