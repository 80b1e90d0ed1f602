/**
 * Keys renamed from snake_case to camelCase are still read for one release, each with one warning
 * line naming where it is written and its new name. (This file spells the old names on purpose.)
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigService } from "./ConfigService.js"
import { loadConfig } from "./load.js"

const loaded = (text: string, overrides: Parameters<typeof loadConfig>[0]["overrides"] = []) => {
  const r = loadConfig({ file: { path: "lg.jsonc", text }, overrides })
  if (r._tag === "error") throw new Error(r.errors.join("\n"))
  return r
}

describe("snake_case keys in a config file", () => {
  test("are read under their camelCase name, one warning each naming file:line, the old and the new key", () => {
    const r = loaded(`{\n  "loop": {\n    "max_steps": 7\n  },\n  "compaction": { "keep_recent_steps": 2 }\n}`)
    expect(r.config.loop.maxSteps).toBe(7)
    expect(r.config.compaction.keepRecentSteps).toBe(2)
    expect(r.warnings).toEqual([
      "lg.jsonc:3: config key loop.max_steps is deprecated, use loop.maxSteps (the snake_case name is accepted for one release)",
      "lg.jsonc:5: config key compaction.keep_recent_steps is deprecated, use compaction.keepRecentSteps (the snake_case name is accepted for one release)"
    ])
  })

  test("the sections and fields renamed in this release: try_best.max_resumes, text_loop, rollback.max_consecutive_rollbacks", () => {
    const r = loaded(`{\n "try_best": { "enabled": true, "max_resumes": 4 },\n "text_loop": { "repeats": 5 },\n "rollback": { "max_consecutive_rollbacks": 2 }\n}`)
    expect([r.config.tryBest.enabled, r.config.tryBest.maxResumes, r.config.textLoop.repeats, r.config.rollback.maxConsecutiveRollbacks]).toEqual([true, 4, 5, 2])
    expect(r.warnings).toEqual([
      "lg.jsonc:2: config key try_best is deprecated, use tryBest (the snake_case name is accepted for one release)",
      "lg.jsonc:2: config key try_best.max_resumes is deprecated, use tryBest.maxResumes (the snake_case name is accepted for one release)",
      "lg.jsonc:3: config key text_loop is deprecated, use textLoop (the snake_case name is accepted for one release)",
      "lg.jsonc:4: config key rollback.max_consecutive_rollbacks is deprecated, use rollback.maxConsecutiveRollbacks (the snake_case name is accepted for one release)"
    ])
  })

  test("a bad value under an old key still names the line it is written on", () => {
    const r = loadConfig({ file: { path: "lg.jsonc", text: `{\n  "loop": {\n    "max_steps": 0\n  }\n}` } })
    expect(r._tag === "error" && r.errors).toEqual(["config field loop.maxSteps (from lg.jsonc:3): Expected a value greater than 0"])
  })

  test("the new spelling wins when both are written; free-form tables keep their keys", () => {
    const r = loaded(`{ "loop": { "maxSteps": 4, "max_steps": 9 }, "prices": { "my_model": { "inputPerMTok": 1, "outputPerMTok": 2 } } }`)
    expect(r.config.loop.maxSteps).toBe(4)
    expect(r.config.prices["my_model"]).toEqual({ inputPerMTok: 1, outputPerMTok: 2 })
    expect(r.warnings).toEqual([
      "lg.jsonc:1: config key loop.max_steps is deprecated, use loop.maxSteps (the snake_case name is accepted for one release); ignored, since loop.maxSteps is set too"
    ])
  })

  test("an override path with an old key is renamed and warned about, naming its flag", () => {
    const r = loaded(`{}`, [{ path: "loop.max_steps", value: 3, flag: "--max-steps" }])
    expect(r.config.loop.maxSteps).toBe(3)
    expect(r.warnings).toEqual(["--max-steps: config key loop.max_steps is deprecated, use loop.maxSteps (the snake_case name is accepted for one release)"])
  })

  test("ConfigService.make tells onWarning each line", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "lg-renamed-")), "loopguard.json")
    writeFileSync(path, `{ "loop": { "max_steps": 5 } }`)
    const lines: Array<string> = []
    const config = await Effect.runPromise(ConfigService.make({ file: path, onWarning: (line) => void lines.push(line) }))
    expect(config.loop.maxSteps).toBe(5)
    expect(lines).toEqual([`${path}:1: config key loop.max_steps is deprecated, use loop.maxSteps (the snake_case name is accepted for one release)`])
  })
})
