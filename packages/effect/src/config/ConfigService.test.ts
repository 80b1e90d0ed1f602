import { describe, expect, test } from "bun:test"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigError, ConfigService, LoopguardConfigError } from "./ConfigService.js"
import { DEFAULT_CONFIG } from "./defaults.js"
import { envVariables } from "./load.js"

const configOf = <E>(layer: Layer.Layer<ConfigService, E>) => Effect.runPromiseExit(Effect.provide(Effect.map(ConfigService, (config) => config), layer))

const errorsOf = (exit: Exit.Exit<unknown, unknown>): ReadonlyArray<string> => {
  if (Exit.isSuccess(exit)) return ["(accepted)"]
  const reason = exit.cause.reasons[0]
  return reason?._tag === "Fail" && reason.error instanceof LoopguardConfigError ? reason.error.errors : [`(not a LoopguardConfigError: ${String(reason)})`]
}

const fileWith = (text: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), "lg-config-")), "loopguard.jsonc")
  writeFileSync(path, text)
  return path
}

describe("ConfigService.layerFile", () => {
  test("reads the JSONC file at the path, with env and overrides over it", async () => {
    const path = fileWith(`{ // a comment\n "repeat": { "window": 400, "threshold": 10 },\n}`)
    const exit = await configOf(ConfigService.layerFile(path, { env: { LOOPGUARD_REPEAT_THRESHOLD: "12" }, overrides: [{ path: "repeat.minBlock", value: 5 }] }))
    expect(Exit.isSuccess(exit) && exit.value.repeat).toEqual({ ...DEFAULT_CONFIG.repeat, window: 400, threshold: 12, minBlock: 5 })
  })

  test("a bad value names file:line and the key path; a missing file is one line naming it", async () => {
    const path = fileWith(`{\n  "loop": {\n    "maxSteps": 0\n  }\n}`)
    expect(errorsOf(await configOf(ConfigService.layerFile(path)))).toEqual([`config field loop.maxSteps (from ${path}:3): Expected a value greater than 0`])
    const missing = join(tmpdir(), "lg-no-such-dir", "loopguard.json")
    const errors = errorsOf(await configOf(ConfigService.layerFile(missing)))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toStartWith(`config file ${missing}: `)
  })

  test("make gives the same config as an Effect", async () => {
    const path = fileWith(`{ "loop": { "maxSteps": 7 } }`)
    expect((await Effect.runPromise(ConfigService.make({ file: path }))).loop.maxSteps).toBe(7)
  })
})

describe("ConfigService.layerConfig", () => {
  const withProvider = (values: Record<string, string>) =>
    ConfigService.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(values))))

  test("reads the LOOPGUARD_* knobs of the current ConfigProvider, checked by the same schema", async () => {
    const exit = await configOf(withProvider({ LOOPGUARD_LOOP_MAX_STEPS: "9", LOOPGUARD_TRY_BEST_ENABLED: "yes", LOOPGUARD_RETRY_RATE_LIMIT_MAX_RETRIES: "4" }))
    expect(Exit.isSuccess(exit) && [exit.value.loop.maxSteps, exit.value.tryBest.enabled, exit.value.retry.rateLimit?.maxRetries]).toEqual([9, true, 4])
    expect(errorsOf(await configOf(withProvider({ LOOPGUARD_LOOP_MAX_STEPS: "-1" })))).toEqual([
      "config field loop.maxSteps (from environment variable LOOPGUARD_LOOP_MAX_STEPS): Expected a value greater than 0"
    ])
  })

  test("the environment provider: an env record reaches the config like the process environment would", async () => {
    const layer = ConfigService.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { LOOPGUARD_REPEAT_WINDOW: "300" } }))))
    const exit = await configOf(layer)
    expect(Exit.isSuccess(exit) && exit.value.repeat.window).toBe(300)
  })
})

describe("the names before this release still work", () => {
  test("layerFrom (the file's text), load, layerWith and the ConfigError name", async () => {
    const input = { file: { path: "lg.json", text: `{\n "loop": { "maxSteps": 0 }\n}` } }
    expect(errorsOf(await configOf(ConfigService.layerFrom(input)))).toEqual(["config field loop.maxSteps (from lg.json:2): Expected a value greater than 0"])
    expect(errorsOf(await Effect.runPromiseExit(ConfigService.load(input)))).toHaveLength(1)
    const patched = await configOf(ConfigService.layerWith((c) => ({ ...c, loop: { ...c.loop, maxSteps: 3 } })))
    expect(Exit.isSuccess(patched) && patched.value.loop.maxSteps).toBe(3)
    expect(ConfigError).toBe(LoopguardConfigError)
    expect(new LoopguardConfigError({ errors: ["x"] })._tag).toBe("LoopguardConfigError")
  })
})

test("the environment variable names are the ones loopguard has always read (env-variables.txt)", () => {
  const pinned = readFileSync(new URL("./env-variables.txt", import.meta.url), "utf8").trim().split("\n")
  expect(envVariables().map((v) => v.name)).toEqual(pinned)
})
