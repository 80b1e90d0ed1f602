import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { tmpdir } from "node:os"
import { ConfigService } from "../config/ConfigService.js"
import { DEFAULT_CONFIG } from "../config/defaults.js"
import { CompletionCheck } from "./CompletionCheck.js"

const check = (command: string, layer: Layer.Layer<CompletionCheck>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* (yield* CompletionCheck).run(command, 20_000)
    }).pipe(Effect.provide(layer))
  )

/** Sets `vars` in this process's environment for the scope; they are deleted when it closes. */
const withEnv = (vars: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => Object.assign(process.env, vars)),
    () => Effect.sync(() => Object.keys(vars).forEach((k) => delete process.env[k]))
  )

describe("CompletionCheck.layerShell", () => {
  test("the command gets the tools' scrubbed environment: key variable, LOOPGUARD_* and deny-list removed", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          yield* withEnv({ LG_CHECK_KEY: "check-secret-1", SOME_API_KEY: "check-secret-2", LG_CHECK_PLAIN: "plain" })
          const layer = CompletionCheck.layerShell(tmpdir(), { secretEnvNames: ["LG_CHECK_KEY"] }).pipe(
            Layer.provide(Layer.succeed(ConfigService, DEFAULT_CONFIG))
          )
          const r = yield* Effect.promise(() => check('echo "[$LG_CHECK_KEY][$SOME_API_KEY][$LG_CHECK_PLAIN]"', layer))
          expect(r).toEqual({ ok: true, exitCode: 0, output: "[][][plain]\n" })
        })
      )
    ), 30_000)

  test("its output is capped like a tool's (tools.maxOutputChars)", async () => {
    const config = { ...DEFAULT_CONFIG, tools: { ...DEFAULT_CONFIG.tools, maxOutputChars: 100 } }
    const layer = CompletionCheck.layerShell(tmpdir()).pipe(Layer.provide(Layer.succeed(ConfigService, config)))
    const r = await check("yes | head -c 1000000; exit 1", layer)
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/characters of output dropped/)
    expect(r.output.length).toBeLessThan(200)
  }, 30_000)
})
