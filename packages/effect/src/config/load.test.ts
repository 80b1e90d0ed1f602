import { describe, expect, test } from "bun:test"
import { DEFAULT_CONFIG } from "./defaults.js"
import { envVariables, loadConfig } from "./load.js"

describe("loadConfig", () => {
  test("defaults decode cleanly", () => {
    const r = loadConfig({})
    expect(r._tag).toBe("ok")
    if (r._tag === "ok") expect(r.config).toEqual(DEFAULT_CONFIG)
  })

  test("file, env and flags override in that order", () => {
    const r = loadConfig({
      file: { path: "lg.jsonc", text: `{ // comment\n "repeat": { "window": 400, "threshold": 10 },\n "try_best": { "enabled": true }, }` },
      env: { LOOPGUARD_REPEAT_THRESHOLD: "12", LOOPGUARD_TRY_BEST_EDIT_TOOLS: "edit, write" },
      overrides: [{ path: "repeat.minBlock", value: 5, flag: "--min-block" }]
    })
    expect(r._tag).toBe("ok")
    if (r._tag !== "ok") return
    expect(r.config.repeat).toEqual({ enabled: true, window: 400, threshold: 12, minBlock: 5, minDistinct: 3, long: DEFAULT_CONFIG.repeat.long })
    expect(r.config.try_best.enabled).toBe(true)
    expect(r.config.try_best.edit_tools).toEqual(["edit", "write"])
  })

  test("a bad file value names file:line and the field", () => {
    const r = loadConfig({ file: { path: "lg.json", text: `{\n  "repeat": {\n    "window": -3\n  }\n}` } })
    expect(r._tag).toBe("error")
    if (r._tag === "error") expect(r.errors.join("\n")).toContain("config field repeat.window (from lg.json:3)")
  })

  test("loop knobs: the long rule and the ladder come from env; a ladder that does not climb is named", () => {
    const ok = loadConfig({ env: { LOOPGUARD_REPEAT_LONG_COPIES: "5", LOOPGUARD_REPEATED_ACTION_STOP_AT: "null", LOOPGUARD_NO_PROGRESS_SPIN_WINDOW: "12" } })
    expect(ok._tag).toBe("ok")
    if (ok._tag === "ok") {
      expect(ok.config.repeat.long.copies).toBe(5)
      expect(ok.config.repeated_action.stopAt).toBeNull()
      expect(ok.config.no_progress_spin.window).toBe(12)
    }
    const bad = loadConfig({ env: { LOOPGUARD_REPEATED_ACTION_REMIND_AT: "9" } })
    expect(bad._tag).toBe("error")
    if (bad._tag === "error") expect(bad.errors.join("\n")).toContain("repeated_action")
    const badLong = loadConfig({ env: { LOOPGUARD_REPEAT_LONG_COPIES: "1" } })
    expect(badLong._tag).toBe("error")
    if (badLong._tag === "error") expect(badLong.errors.join("\n")).toContain("LOOPGUARD_REPEAT_LONG_COPIES")
  })

  test("a bad env value names the variable", () => {
    const r = loadConfig({ env: { LOOPGUARD_STREAM_CHUNK_TIMEOUT_MS: "soon" } })
    expect(r._tag).toBe("error")
    if (r._tag === "error") expect(r.errors.join("\n")).toContain("LOOPGUARD_STREAM_CHUNK_TIMEOUT_MS")
  })

  test("unknown keys are rejected, not ignored", () => {
    const r = loadConfig({ file: { path: "lg.json", text: `{"repeat": {"windw": 3}}` } })
    expect(r._tag).toBe("error")
    if (r._tag === "error") expect(r.errors.join("\n")).toContain("repeat.windw")
  })

  test("broken JSON reports line and column", () => {
    const r = loadConfig({ file: { path: "lg.json", text: `{\n "repeat": { "window": 4 \n "x": 1 }` } })
    expect(r._tag).toBe("error")
    if (r._tag === "error") expect(r.errors[0]).toMatch(/^lg\.json:3:\d+: /)
  })

  test("deadlineMs and noDeadline together name the budget", () => {
    const r = loadConfig({ file: { path: "lg.json", text: `{"provider": {"openai": {"retry": {"server": {"deadlineMs": 5, "noDeadline": true}}}}}` } })
    expect(r._tag).toBe("error")
    if (r._tag === "error") expect(r.errors.join("\n")).toContain("provider.openai.retry.server: deadlineMs and noDeadline are mutually exclusive")
  })

  test("retry budgets are settable from the environment", () => {
    const r = loadConfig({ env: { LOOPGUARD_RETRY_RATE_LIMIT_MAX_RETRIES: "7", LOOPGUARD_RETRY_NETWORK_NO_DEADLINE: "true" } })
    expect(r._tag).toBe("ok")
    if (r._tag === "ok") expect(r.config.retry.rateLimit?.maxRetries).toBe(7)
    expect(envVariables().map((v) => v.name)).toContain("LOOPGUARD_LOOP_STREAK_RECOVERY_TRIGGER_COUNT")
  })
})
