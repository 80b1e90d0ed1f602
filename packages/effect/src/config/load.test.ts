import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { DEFAULT_CONFIG } from "./defaults.js"
import { envVariables, loadConfig } from "./load.js"
import { repeatGuardOptionsOf } from "./repeat-guard-options.js"
import { LoopguardConfigSchema } from "./schema.js"

describe("loadConfig", () => {
  test("the defaults decode to themselves: loading with nothing set skips the decode and gives the same config", () => {
    const decoded = Schema.decodeUnknownSync(LoopguardConfigSchema)(structuredClone(DEFAULT_CONFIG), { errors: "all", onExcessProperty: "error" })
    expect(decoded).toEqual(DEFAULT_CONFIG)
    for (const input of [{}, { env: {} }, { file: { path: "loopguard.json", text: "{}" } }, { overrides: [] }]) {
      const r = loadConfig(input)
      expect(r).toEqual({ _tag: "ok", config: decoded, warnings: [] })
      // A fresh object each time: a caller that changes its copy cannot change the defaults.
      if (r._tag === "ok") expect(r.config).not.toBe(DEFAULT_CONFIG)
    }
    // Anything set still goes through the schema.
    expect(loadConfig({ env: { LOOPGUARD_REPEAT_WINDOW: "-5" } })._tag).toBe("error")
  })

  test("with no input the loaded config carries the documented defaults (docs/config.md, written out here, not read from DEFAULT_CONFIG)", () => {
    const r = loadConfig({})
    expect(r._tag).toBe("ok")
    if (r._tag !== "ok") return
    const c = r.config
    expect(c.repeat).toMatchObject({ enabled: true, window: 500, threshold: 20, minBlock: 4, minDistinct: 3 })
    expect(c.stream.chunkTimeoutMs).toBe(480_000)
    expect(c.recovery).toMatchObject({ lengthContinuations: 3, emptyRetries: 2, textToolCallRetries: 2, structuredRetries: 2 })
    expect(c.textLoop).toMatchObject({ enabled: true, bufferSize: 5, repeats: 3, keyChars: 200 })
    expect(c.repeatedAction).toMatchObject({ enabled: true, repeats: 3 })
    expect(c.loopStreakRecovery).toMatchObject({ enabled: false, triggerCount: 3, maxSpan: 64, cacheRiskBlocks: 20 })
    expect(c.tryBest).toMatchObject({ enabled: false, editWindow: 12, editSimilarity: 0.8, editMatches: 0, actionStreak: 0, failedCommandRetries: 3 })
    expect(c.rollback).toMatchObject({ enabled: true, maxConsecutiveRollbacks: 5 })
    expect(c.loop).toMatchObject({ toolTimeoutMs: 120_000 })
    expect(c.breaker).toMatchObject({ consecutiveFailures: 3 })
    expect(c.goalGate).toMatchObject({ enabled: false, maxChecks: 20 })
    expect(c.textToolCalls).toEqual({ mode: "execute" })
    expect(c.failureSummary).toEqual({ enabled: false, maxRetries: 1 })
    // Nothing in the defaults is dropped or reshaped by the decode.
    expect(c).toEqual(DEFAULT_CONFIG)
  })

  test("the section-wide retry knobs read from the environment", () => {
    const r = loadConfig({ env: { LOOPGUARD_RETRY_JITTER_RATIO: "0.25", LOOPGUARD_RETRY_RETRYABLE_STATUSES: "404, 409" } })
    expect(r._tag).toBe("ok")
    if (r._tag === "ok") expect(r.config.retry).toMatchObject({ jitterRatio: 0.25, retryableStatuses: [404, 409] })
    const bad = loadConfig({ env: { LOOPGUARD_RETRY_RETRYABLE_STATUSES: "404,nope" } })
    expect(bad._tag).toBe("error")
    if (bad._tag === "error") expect(bad.errors.join("\n")).toContain("LOOPGUARD_RETRY_RETRYABLE_STATUSES")
  })

  test("switches read from the environment also take 1/0, yes/no and on/off", () => {
    for (const [raw, want] of [["1", true], ["yes", true], ["ON", true], ["0", false], ["no", false], ["off", false]] as const) {
      const r = loadConfig({ env: { LOOPGUARD_TRY_BEST_ENABLED: raw } })
      expect(r._tag).toBe("ok")
      if (r._tag === "ok") expect(r.config.tryBest.enabled).toBe(want)
    }
    const bad = loadConfig({ env: { LOOPGUARD_TRY_BEST_ENABLED: "2" } })
    expect(bad._tag).toBe("error")
    if (bad._tag === "error") expect(bad.errors.join("\n")).toContain("LOOPGUARD_TRY_BEST_ENABLED")
  })

  test("file, env and flags override in that order", () => {
    const r = loadConfig({
      file: { path: "lg.jsonc", text: `{ // comment\n "repeat": { "window": 400, "threshold": 10 },\n "tryBest": { "enabled": true }, }` },
      env: { LOOPGUARD_REPEAT_THRESHOLD: "12", LOOPGUARD_TRY_BEST_EDIT_TOOLS: "edit, write" },
      overrides: [{ path: "repeat.minBlock", value: 5, flag: "--min-block" }]
    })
    expect(r._tag).toBe("ok")
    if (r._tag !== "ok") return
    expect(r.config.repeat).toEqual({ enabled: true, window: 400, threshold: 12, minBlock: 5, minDistinct: 3, long: DEFAULT_CONFIG.repeat.long })
    expect(r.config.tryBest.enabled).toBe(true)
    expect(r.config.tryBest.editTools).toEqual(["edit", "write"])
  })

  test("a library override without a flag is named by its path in errors", () => {
    const r = loadConfig({ overrides: [{ path: "repeat.window", value: -1 }] })
    expect(r._tag).toBe("error")
    if (r._tag === "error") expect(r.errors.join("\n")).toContain('overrides["repeat.window"]')
  })

  test("what the repetition guard would refuse at run time is refused at load, naming the field", () => {
    for (const [repeat, field, words] of [
      [{ window: 2_000_000 }, "repeat.window", "from 1 to 1000000"],
      [{ window: 100, minDistinct: 90 }, "repeat.minDistinct", "floor(window / threshold)"],
      [{ window: 50, threshold: 20, minBlock: 4 }, "repeat.window", "minBlock * threshold"]
    ] as const) {
      const r = loadConfig({ file: { path: "lg.json", text: JSON.stringify({ repeat }) } })
      expect(r._tag).toBe("error")
      if (r._tag === "error") expect(r.errors.join("\n")).toContain(`config field ${field} (from lg.json:1)`)
      if (r._tag === "error") expect(r.errors.join("\n")).toContain(words)
    }
  })

  test("a bad file value names file:line and the field", () => {
    const r = loadConfig({ file: { path: "lg.json", text: `{\n  "repeat": {\n    "window": -3\n  }\n}` } })
    expect(r._tag).toBe("error")
    if (r._tag === "error") expect(r.errors.join("\n")).toContain("config field repeat.window (from lg.json:3)")
  })

  test("other-harness loop knobs: varied retry, failure streak and the observation window from env; impossible ones are named", () => {
    const ok = loadConfig({ env: { LOOPGUARD_VARIED_RETRY_REPEATS: "5", LOOPGUARD_FAILURE_STREAK_STEPS: "10", LOOPGUARD_REPEATED_OBSERVATION_WINDOW: "0" } })
    expect(ok._tag).toBe("ok")
    if (ok._tag === "ok") {
      expect(ok.config.variedRetry).toEqual({ enabled: true, repeats: 5, window: 15 })
      expect(ok.config.failureStreak.steps).toBe(10)
      expect(ok.config.repeatedObservation.window).toBe(0)
    }
    const bad = loadConfig({ env: { LOOPGUARD_VARIED_RETRY_REPEATS: "20" } })
    expect(bad._tag).toBe("error")
    if (bad._tag === "error") expect(bad.errors.join("\n")).toContain("config field variedRetry.repeats (from environment variable LOOPGUARD_VARIED_RETRY_REPEATS): 20 is above window (15)")
    const badWindow = loadConfig({ file: { path: "lg.json", text: `{ "repeatedObservation": { "windowRepeats": 12 } }` } })
    expect(badWindow._tag).toBe("error")
    if (badWindow._tag === "error") expect(badWindow.errors.join("\n")).toContain("repeatedObservation.windowRepeats")
    const badSteps = loadConfig({ env: { LOOPGUARD_FAILURE_STREAK_STEPS: "1" } })
    expect(badSteps._tag).toBe("error")
    if (badSteps._tag === "error") expect(badSteps.errors.join("\n")).toContain("LOOPGUARD_FAILURE_STREAK_STEPS")
  })

  test("loop knobs: the long rule and the ladder come from env; a ladder that does not climb is named", () => {
    const ok = loadConfig({ env: { LOOPGUARD_REPEAT_LONG_COPIES: "5", LOOPGUARD_REPEATED_ACTION_STOP_AT: "null", LOOPGUARD_NO_PROGRESS_SPIN_WINDOW: "12" } })
    expect(ok._tag).toBe("ok")
    if (ok._tag === "ok") {
      expect(ok.config.repeat.long.copies).toBe(5)
      expect(ok.config.repeatedAction.stopAt).toBeNull()
      expect(ok.config.noProgressSpin.window).toBe(12)
    }
    const bad = loadConfig({ env: { LOOPGUARD_REPEATED_ACTION_REMIND_AT: "9" } })
    expect(bad._tag).toBe("error")
    if (bad._tag === "error") expect(bad.errors.join("\n")).toContain("repeatedAction")
    const badLong = loadConfig({ env: { LOOPGUARD_REPEAT_LONG_COPIES: "1" } })
    expect(badLong._tag).toBe("error")
    if (badLong._tag === "error") expect(badLong.errors.join("\n")).toContain("LOOPGUARD_REPEAT_LONG_COPIES")
  })

  test("the runaway-shape knobs of the long rule come from env and reach RepeatGuard's options; a flood limit of 1 is named", () => {
    const ok = loadConfig({ env: { LOOPGUARD_REPEAT_LONG_RECUR_CHARS: "3000", LOOPGUARD_REPEAT_LONG_WHITESPACE_CHARS: "500" } })
    expect(ok._tag).toBe("ok")
    if (ok._tag === "ok") {
      expect(ok.config.repeat.long.recurChars).toBe(3000)
      expect(ok.config.repeat.long.whitespaceChars).toBe(500)
      expect(repeatGuardOptionsOf(ok.config.repeat).long).toMatchObject({ recurChars: 3000, whitespaceChars: 500 })
    }
    const bad = loadConfig({ env: { LOOPGUARD_REPEAT_LONG_WHITESPACE_CHARS: "1" } })
    expect(bad._tag).toBe("error")
    if (bad._tag === "error") expect(bad.errors.join("\n")).toContain("LOOPGUARD_REPEAT_LONG_WHITESPACE_CHARS")
  })

  test("the proxy's session header: an HTTP header name of its own, never one that carries a credential", () => {
    const problem = (name: string) => {
      const r = loadConfig({ env: { LOOPGUARD_PROXY_SESSION_HEADER: name } })
      return r._tag === "error" ? r.errors.join("\n") : null
    }
    expect(problem("x-agent-session")).toBeNull()
    expect(problem("bad header")).toContain('not an HTTP header name: "bad header"')
    expect(problem("X-Api-Key")).toContain("X-Api-Key carries something else")
    expect(problem("authorization")).toContain("proxy.sessionHeader")
  })

  test("the proxy's workers: a number from 1 to 64 or auto, from env, file or flag; anything else is named", () => {
    const workers = (input: Parameters<typeof loadConfig>[0]) => {
      const r = loadConfig(input)
      return r._tag === "ok" ? r.config.proxy.workers : r.errors.join("\n")
    }
    expect(workers({})).toBe(1)
    expect(workers({ env: { LOOPGUARD_PROXY_WORKERS: "auto" } })).toBe("auto")
    expect(workers({ env: { LOOPGUARD_PROXY_WORKERS: "3" } })).toBe(3)
    expect(workers({ file: { path: "lg.json", text: `{"proxy": {"workers": "auto"}}` } })).toBe("auto")
    expect(workers({ overrides: [{ path: "proxy.workers", value: "auto", flag: "--workers" }] })).toBe("auto")
    expect(workers({ env: { LOOPGUARD_PROXY_WORKERS: "max" } })).toContain('LOOPGUARD_PROXY_WORKERS): Expected a whole number from 1 to 64, or "auto"')
    expect(workers({ file: { path: "lg.json", text: `{"proxy": {"workers": "AUTO"}}` } })).toContain("lg.json:1")
    expect(workers({ overrides: [{ path: "proxy.workers", value: 65, flag: "--workers" }] })).toContain("(from flag --workers): Expected a value between 1 and 64")
    expect(workers({ overrides: [{ path: "proxy.workers", value: 1.5, flag: "--workers" }] })).toContain("Expected an integer")
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

  test("a file cut short is one error, in words, not the parser's echoes of it", () => {
    const r = loadConfig({ file: { path: "lg.json", text: `{ "proxy": { "listen": ` } })
    expect(r).toEqual({ _tag: "error", errors: ["lg.json:1:24: not valid JSON: value expected"] })
  })

  test("deadlineMs and noDeadline together name the budget", () => {
    const r = loadConfig({ file: { path: "lg.json", text: `{"provider": {"openai": {"retry": {"server": {"deadlineMs": 5, "noDeadline": true}}}}}` } })
    expect(r._tag).toBe("error")
    if (r._tag === "error") expect(r.errors.join("\n")).toContain("config field provider.openai.retry.server (from lg.json:1): deadlineMs and noDeadline are mutually exclusive")
  })

  test("retry budgets are settable from the environment", () => {
    const r = loadConfig({ env: { LOOPGUARD_RETRY_RATE_LIMIT_MAX_RETRIES: "7", LOOPGUARD_RETRY_NETWORK_NO_DEADLINE: "true" } })
    expect(r._tag).toBe("ok")
    if (r._tag === "ok") expect(r.config.retry.rateLimit?.maxRetries).toBe(7)
    expect(envVariables().map((v) => v.name)).toContain("LOOPGUARD_LOOP_STREAK_RECOVERY_TRIGGER_COUNT")
  })
})

describe("loadConfig hardening", () => {
  const errorsOf = (input: Parameters<typeof loadConfig>[0]): string => {
    const r = loadConfig(input)
    return r._tag === "error" ? r.errors.join("\n") : "(accepted)"
  }

  test("a timer above 2^31−1 ms is rejected, naming the field and where it came from", () => {
    expect(errorsOf({ file: { path: "lg.json", text: `{\n "loop": { "toolTimeoutMs": 2147483648 }\n}` } })).toContain(
      "config field loop.toolTimeoutMs (from lg.json:2)"
    )
    expect(errorsOf({ env: { LOOPGUARD_COMPLETION_CHECK_TIMEOUT_MS: "9999999999" } })).toContain(
      "config field completionCheck.timeoutMs (from environment variable LOOPGUARD_COMPLETION_CHECK_TIMEOUT_MS)"
    )
    expect(loadConfig({ env: { LOOPGUARD_LOOP_TOOL_TIMEOUT_MS: "2147483647" } })._tag).toBe("ok")
  })

  test("every millisecond knob (…Ms) rejects a value above 2^31−1, naming its field", () => {
    const timers = envVariables().filter((v) => v.name.endsWith("_MS"))
    expect(timers.length).toBeGreaterThan(10)
    for (const v of timers) {
      expect(errorsOf({ env: { [v.name]: "2147483648" } })).toContain(`config field ${v.path.join(".")} (from environment variable ${v.name})`)
    }
  })

  test("nesting deeper than the limit is refused before parsing, naming file:line", () => {
    const deep = `{"repair": {"tools": {"x": {"defaults": {"y": ${"[".repeat(100_000)}${"]".repeat(100_000)}}}}}}`
    expect(errorsOf({ file: { path: "deep.json", text: deep } })).toMatch(/^deep\.json:1:\d+: nested deeper than 32 levels/)
  })

  test("__proto__, constructor and prototype keys are refused, naming file:line", () => {
    const text = `{\n "repeat": { "__proto__": { "window": 1 } },\n "provider": { "constructor": {} }\n}`
    const errors = errorsOf({ file: { path: "p.json", text } })
    expect(errors).toContain("p.json:2:14: key repeat.__proto__ is not allowed")
    expect(errors).toContain("p.json:3:16: key provider.constructor is not allowed")
    expect(errorsOf({ file: { path: "p.json", text: `{"repair": {"tools": {"t": {"defaults": {"prototype": 1}}}}}` } })).toContain(
      "key repair.tools.t.defaults.prototype is not allowed"
    )
  })

  test("a key written twice in one object is refused, naming file:line:column, the key's path and the first writing", () => {
    const text = `{\n "repeat": { "window": 300 },\n // the same section again\n "repeat": { "threshold": 5 },\n}`
    expect(errorsOf({ file: { path: "dup.jsonc", text } })).toBe(
      "dup.jsonc:4:2: key repeat is written twice in one object (first on line 2); only the last would count: merge them into one"
    )
    // Inside a section, inside a list item, and spelled differently (keys compare decoded).
    const nested = errorsOf({ file: { path: "n.json", text: `{"tryBest": {"enabled": true, "enabled": false}, "repair": {"tools": {"t": {"defaults": {"a": 1, "\\u0061": 2}}}}}` } })
    expect(nested).toContain("n.json:1:31: key tryBest.enabled is written twice")
    expect(nested).toContain("key repair.tools.t.defaults.a is written twice")
    // The same key in two different objects is no repeat.
    expect(loadConfig({ file: { path: "ok.json", text: `{"repeat": {"enabled": true}, "textLoop": {"enabled": true}}` } })._tag).toBe("ok")
  })

  test("an empty value where empty means nothing is refused, naming the variable or file:line (as breaker.fallback is)", () => {
    const env = (name: string, value = "") => errorsOf({ env: { [name]: value } })
    // "" would always pass the completion gate; an empty list would blind Try-Best's tool tables.
    expect(env("LOOPGUARD_COMPLETION_CHECK_COMMAND")).toContain(
      "config field completionCheck.command (from environment variable LOOPGUARD_COMPLETION_CHECK_COMMAND): an empty command runs nothing"
    )
    expect(env("LOOPGUARD_COMPLETION_CHECK_COMMAND", "   ")).toContain("completionCheck.command")
    expect(errorsOf({ file: { path: "c.json", text: `{\n "completionCheck": { "command": "" }\n}` } })).toContain("config field completionCheck.command (from c.json:2): an empty command")
    for (const [name, field] of [
      ["LOOPGUARD_TRY_BEST_SHELL_TOOLS", "tryBest.shellTools"],
      ["LOOPGUARD_TRY_BEST_EDIT_TOOLS", "tryBest.editTools"],
      ["LOOPGUARD_TRY_BEST_VERIFICATION_PATTERNS", "tryBest.verificationPatterns"],
      ["LOOPGUARD_BREAKER_FALLBACK", "breaker.fallback"],
      ["LOOPGUARD_PROXY_LISTEN", "proxy.listen"],
      ["LOOPGUARD_PROXY_UPSTREAM", "proxy.upstream"],
      ["LOOPGUARD_PROXY_UPSTREAM_KEY_ENV", "proxy.upstreamKeyEnv"],
      ["LOOPGUARD_PROXY_TOKEN_ENV", "proxy.tokenEnv"]
    ] as const) {
      expect(env(name)).toBe(`config field ${field} (from environment variable ${name}): Expected a value with a length of at least 1`)
    }
    // A list of names: no empty entry (an empty regex would call every command a verification run).
    expect(errorsOf({ file: { path: "l.json", text: `{"tryBest": {"verificationPatterns": ["pytest", ""]}, "tools": {"envDeny": [""]}}` } })).toContain(
      "config field tryBest.verificationPatterns[1] (from l.json:1)"
    )
    // Where empty is the default and means "none", it stays allowed.
    const none = loadConfig({ env: { LOOPGUARD_TOOLS_ENV_ALLOW: "", LOOPGUARD_TOOLS_ENV_PASS: "", LOOPGUARD_STALL_REQUIRED_ARTEFACTS: "", LOOPGUARD_PROXY_ALLOWED_ORIGINS: "", LOOPGUARD_RETRY_RETRYABLE_STATUSES: "" } })
    expect(none._tag).toBe("ok")
    expect(loadConfig({ env: { LOOPGUARD_COMPLETION_CHECK_COMMAND: "null" } })._tag).toBe("ok")
  })

  test("a leading BOM is accepted", () => {
    const r = loadConfig({ file: { path: "bom.json", text: `\uFEFF{ "repeat": { "window": 400 } }` } })
    expect(r._tag).toBe("ok")
    if (r._tag === "ok") expect(r.config.repeat.window).toBe(400)
  })

  test("an unknown LOOPGUARD_* variable is an error naming it; the endpoint variables are known", () => {
    expect(errorsOf({ env: { LOOPGUARD_REPEAT_WINDOWS: "3", LOOPGUARD_MODEL: "m", LOOPGUARD_CONFIG: "x.json" } })).toBe(
      "environment variable LOOPGUARD_REPEAT_WINDOWS is not a loopguard setting (see docs/config.md for the list)"
    )
  })

  test("the variables proxy.tokenEnv and proxy.upstreamKeyEnv name are accepted, by default and as configured", () => {
    expect(loadConfig({ env: { LOOPGUARD_PROXY_TOKEN: "t0ken-123456" } })._tag).toBe("ok")
    const configured = loadConfig({
      file: { path: "c.json", text: `{"proxy": {"tokenEnv": "LOOPGUARD_MY_TOKEN", "upstreamKeyEnv": "LOOPGUARD_UPSTREAM_KEY"}}` },
      env: { LOOPGUARD_MY_TOKEN: "t", LOOPGUARD_UPSTREAM_KEY: "k", LOOPGUARD_PROXY_TOKEN: "t" }
    })
    expect(configured._tag).toBe("ok")
    expect(errorsOf({ env: { LOOPGUARD_PROXY_TOKENS: "t" } })).toContain("environment variable LOOPGUARD_PROXY_TOKENS is not a loopguard setting")
  })

  test("a bad regular expression in tryBest.verificationPatterns names the field and the entry", () => {
    expect(errorsOf({ file: { path: "re.json", text: `{"tryBest": {"verificationPatterns": ["pytest", "npm (test"]}}` } })).toContain(
      "config field tryBest.verificationPatterns[1] (from re.json:1): not a valid regular expression \"npm (test\""
    )
  })

  test("the tool and response-limit knobs read from the environment", () => {
    const r = loadConfig({
      env: { LOOPGUARD_TOOLS_ENV_ALLOW: "PATH,HOME", LOOPGUARD_TOOLS_APPROVE_COMMANDS: "true", LOOPGUARD_STREAM_MAX_EVENT_BYTES: "1024" }
    })
    expect(r._tag).toBe("ok")
    if (r._tag !== "ok") return
    expect(r.config.tools.envAllow).toEqual(["PATH", "HOME"])
    expect(r.config.tools.approveCommands).toBe(true)
    expect(r.config.stream.maxEventBytes).toBe(1024)
  })
})
