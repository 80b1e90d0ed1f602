import { Config, Context, Data, Effect, Layer, Option } from "effect"
import { readConfigFileText } from "./read-file.js"
import { DEFAULT_CONFIG } from "./defaults.js"
import { envVariables, loadConfig, type ConfigInput } from "./load.js"
import type { LoopguardConfig } from "./schema.js"

/** A config that did not validate: one message per bad field, naming where the value came from. */
export class LoopguardConfigError extends Data.TaggedError("LoopguardConfigError")<{ readonly errors: ReadonlyArray<string> }> {
  override get message() {
    return this.errors.join("\n")
  }
}

/** @deprecated Renamed `LoopguardConfigError` (Effect has a `Config.ConfigError` of its own); this alias goes in the next release. */
export const ConfigError = LoopguardConfigError
/** @deprecated Renamed `LoopguardConfigError`; this alias goes in the next release. */
export type ConfigError = LoopguardConfigError

/** Where a config comes from, lowest precedence first: defaults ← the file at `file` ← `env` ← `overrides`. */
export interface ConfigSources {
  /** Path of a JSON/JSONC config file; errors in it name file:line. */
  readonly file?: string
  /**
   * The file was found in the working directory, not named by the user (`./loopguard.json`): the keys
   * that decide what runs, where requests and keys go and who may connect are refused from it
   * (`FOUND_FILE_REFUSED`).
   */
  readonly found?: boolean
  readonly env?: ConfigInput["env"]
  readonly overrides?: ConfigInput["overrides"]
  /** Told each deprecated key used (one line naming where it is written and its new name); default: `Effect.logWarning`. */
  readonly onWarning?: (line: string) => void
}

const readConfigText = (path: string): Effect.Effect<string, LoopguardConfigError> =>
  Effect.try({
    try: () => readConfigFileText(path),
    catch: (e) => new LoopguardConfigError({ errors: [`config file ${path}: ${(e as Error).message}`] })
  })

const fromInput = (input: ConfigInput, onWarning?: (line: string) => void): Effect.Effect<LoopguardConfig, LoopguardConfigError> => {
  const r = loadConfig(input)
  if (r._tag === "error") return Effect.fail(new LoopguardConfigError({ errors: r.errors }))
  const warn = (line: string) => (onWarning !== undefined ? Effect.sync(() => onWarning(line)) : Effect.logWarning(line))
  return Effect.as(Effect.forEach(r.warnings, warn, { discard: true }), r.config)
}

/** Every LOOPGUARD_* knob the current ConfigProvider holds, as text (the loader parses and checks it). */
const knobsFromProvider: Effect.Effect<Record<string, string>, LoopguardConfigError> = Effect.gen(function* () {
  const names = envVariables().map((v) => v.name)
  const found = yield* Config.all(names.map((name) => Config.option(Config.String(name)))).pipe(
    Effect.mapError((e) => new LoopguardConfigError({ errors: [`configuration provider: ${e.message}`] }))
  )
  return Object.fromEntries(names.flatMap((name, i) => Option.toArray(Option.map(found[i]!, (value) => [name, value] as const))))
})

/** The validated config every service reads its thresholds from. */
export class ConfigService extends Context.Service<ConfigService, LoopguardConfig>()("loopguard/ConfigService") {
  /** The documented defaults (docs/config.md). */
  static readonly layer = Layer.succeed(ConfigService, DEFAULT_CONFIG)

  /**
   * The config from its sources (defaults ← file ← env ← overrides), checked by the one schema;
   * fails with a LoopguardConfigError naming each bad field and where its value came from.
   */
  static readonly make: (sources?: ConfigSources) => Effect.Effect<LoopguardConfig, LoopguardConfigError> = Effect.fn("ConfigService.make")(
    function* (sources: ConfigSources = {}) {
      const file = sources.file === undefined ? undefined : { path: sources.file, text: yield* readConfigText(sources.file), found: sources.found === true }
      const input = { ...(file !== undefined ? { file } : {}), ...(sources.env !== undefined ? { env: sources.env } : {}), ...(sources.overrides !== undefined ? { overrides: sources.overrides } : {}) }
      return yield* fromInput(input, sources.onWarning)
    }
  )

  /**
   * The defaults with the LOOPGUARD_* knobs of Effect's current `ConfigProvider` laid over them
   * (the process environment unless a runtime installs another, e.g. `ConfigProvider.fromUnknown`),
   * checked by the same schema as a file. A provider cannot list its keys, so a misspelt
   * LOOPGUARD_* name is not reported here as it is by `make({ env })`.
   */
  static readonly layerConfig: Layer.Layer<ConfigService, LoopguardConfigError> = Layer.effect(
    ConfigService,
    Effect.flatMap(knobsFromProvider, (env) => fromInput({ env }))
  )

  /** The config file at `path` (JSON or JSONC) over the defaults, with `env` and `overrides` over it when given. */
  static readonly layerFile = (path: string, sources: Omit<ConfigSources, "file"> = {}): Layer.Layer<ConfigService, LoopguardConfigError> =>
    Layer.effect(ConfigService, ConfigService.make({ ...sources, file: path }))

  /** @deprecated Use `ConfigService.make({ file: path, env, overrides })`, which reads the file itself; this alias goes in the next release. */
  static readonly load = (input: ConfigInput): Effect.Effect<LoopguardConfig, LoopguardConfigError> => fromInput(input)

  /** @deprecated Use `ConfigService.layerFile(path, { env, overrides })`; this alias goes in the next release. */
  static readonly layerFrom = (input: ConfigInput): Layer.Layer<ConfigService, LoopguardConfigError> => Layer.effect(ConfigService, fromInput(input))

  /** @deprecated Use `Layer.succeed(ConfigService, { ...DEFAULT_CONFIG, … })`; this alias goes in the next release. */
  static readonly layerWith = (patch: (c: LoopguardConfig) => LoopguardConfig): Layer.Layer<ConfigService> => Layer.succeed(ConfigService, patch(DEFAULT_CONFIG))
}
