import { Context, Data, Effect, Layer } from "effect"
import { DEFAULT_CONFIG } from "./defaults.js"
import { loadConfig, type ConfigInput } from "./load.js"
import type { LoopguardConfig } from "./schema.js"

/** A config that did not validate: one message per bad field, naming where the value came from. */
export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly errors: ReadonlyArray<string> }> {
  override get message() {
    return this.errors.join("\n")
  }
}

/** The validated config every service reads its thresholds from. */
export class ConfigService extends Context.Service<ConfigService, LoopguardConfig>()("loopguard/ConfigService") {
  /** The documented defaults (docs/config.md). */
  static readonly layer = Layer.succeed(ConfigService, DEFAULT_CONFIG)

  /** Defaults ← file ← env ← overrides, validated; fails with a ConfigError naming each bad field. */
  static readonly layerFrom = (input: ConfigInput) => Layer.effect(ConfigService, ConfigService.load(input))

  static readonly load = (input: ConfigInput): Effect.Effect<LoopguardConfig, ConfigError> => {
    const r = loadConfig(input)
    return r._tag === "ok" ? Effect.succeed(r.config) : Effect.fail(new ConfigError({ errors: r.errors }))
  }

  /** A config with some sections replaced, for tests and per-provider Layers. */
  static readonly layerWith = (patch: (c: LoopguardConfig) => LoopguardConfig) => Layer.succeed(ConfigService, patch(DEFAULT_CONFIG))
}
