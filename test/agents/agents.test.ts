import { describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { geminiCli, kilo, opencode, TEST_API_KEY, type AgentRunContext } from "./agents.js"

const withHome = <A>(use: (ctx: AgentRunContext) => A): A => {
  const home = mkdtempSync(join(tmpdir(), "lg-agent-spec-"))
  try {
    return use({ baseURL: "http://127.0.0.1:9/v1", modelId: "m", workspace: home, home, prompt: "do it" })
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

const userMessageAt = (time: string, text = "Write healthy") => ({
  messages: [{ role: "user", content: [{ type: "text", text }, { type: "text", text: `<environment_details>\nMessage time: ${time}\n</environment_details>` }] }]
})

describe("OpenCode-family agent specs", () => {
  test("Kilo gets OpenCode's provider block under its own variables, limited to that provider", () => {
    withHome((ctx) => {
      const call = kilo.invocation("/install", ctx)
      expect(call.command).toBe(join("/install", "node_modules", "@kilocode", `cli-${process.platform}-${process.arch}`, "bin", "kilo"))
      expect(call.args).toEqual(["run", "do it"])
      expect(Object.keys(call.env).filter((k) => k.startsWith("OPENCODE_"))).toEqual([])
      expect(call.env).toMatchObject({ KILO_DISABLE_MODELS_FETCH: "1", KILO_DISABLE_SHARE: "1", KILO_TELEMETRY_LEVEL: "off", KILO_NO_DAEMON: "1" })
      const config = JSON.parse(readFileSync(call.env["KILO_CONFIG"]!, "utf8"))
      expect(config.enabled_providers).toEqual(["loopguard"])
      expect(config.provider.loopguard.options).toEqual({ baseURL: ctx.baseURL, apiKey: TEST_API_KEY })
      expect(config.model).toBe("loopguard/m")
    })
  })

  test("OpenCode keeps its own variables and config file", () => {
    withHome((ctx) => {
      const call = opencode.invocation("/install", ctx)
      expect(call.command).toBe(join("/install", "node_modules", `opencode-${process.platform}-${process.arch}`, "bin", "opencode"))
      expect(Object.keys(call.env).filter((k) => k.startsWith("KILO_"))).toEqual([])
      const config = JSON.parse(readFileSync(call.env["OPENCODE_CONFIG"]!, "utf8"))
      expect(config.$schema).toBe("https://opencode.ai/config.json")
      expect(config.enabled_providers).toBeUndefined()
      expect(opencode.volatile).toBeUndefined()
    })
  })

  test("Kilo's message time is set aside, nothing else", () => {
    const volatile = kilo.volatile!
    expect(volatile(userMessageAt("2026-12-01T21:43:17Z"))).toEqual(volatile(userMessageAt("2026-12-01T21:43:28Z")))
    expect(volatile(userMessageAt("2026-12-01T21:43:17Z", "a"))).not.toEqual(volatile(userMessageAt("2026-12-01T21:43:17Z", "b")))
    expect(JSON.stringify(volatile(userMessageAt("2026-12-01T21:43:17Z")))).toContain("Message time: <time>")
  })
})

describe("Gemini CLI agent spec", () => {
  const prompt = (skills: ReadonlyArray<string>, rest = "Use them well.") => ({
    systemInstruction: { parts: [{ text: `<available_skills>\n${skills.map((s) => `  <skill>\n    <name>${s}</name>\n  </skill>\n`).join("")}</available_skills>\n${rest}` }] }
  })

  test("the order its built-in skills are listed in is set aside, not the skills or the rest of the prompt", () => {
    const volatile = geminiCli.volatile!
    expect(volatile(prompt(["skill-creator", "antigravity-support"]))).toEqual(volatile(prompt(["antigravity-support", "skill-creator"])))
    expect(volatile(prompt(["skill-creator"]))).not.toEqual(volatile(prompt(["antigravity-support"])))
    expect(volatile(prompt(["skill-creator"], "a"))).not.toEqual(volatile(prompt(["skill-creator"], "b")))
  })

  // The same order again in the activate_skill tool: its description's list and its enum of names.
  test("the order of the skills the activate_skill tool names is set aside too, not the names", () => {
    const tool = (skills: ReadonlyArray<string>) => ({
      tools: [{ functionDeclarations: [{ name: "activate_skill", description: `Activates a skill by name (Available: ${skills.map((s) => `'${s}'`).join(", ")}). Returns it.`, parametersJsonSchema: { type: "object", properties: { name: { type: "string", enum: skills } } } }] }]
    })
    const volatile = geminiCli.volatile!
    expect(volatile(tool(["skill-creator", "antigravity-support"]))).toEqual(volatile(tool(["antigravity-support", "skill-creator"])))
    expect(volatile(tool(["skill-creator"]))).not.toEqual(volatile(tool(["antigravity-support"])))
  })
})
