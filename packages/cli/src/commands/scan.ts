/**
 * `loopguard scan`: in-stream repetition over text on stdin. Plain mode scans the whole input
 * as one stream; `--jsonl` treats each line as one JSON-string document and prints one JSON
 * verdict per line (a fixed output contract, docs/cli.md): `repeat`/`token`/`period` for the short-period rule,
 * `long` for the long-period rule (null, or where it tripped).
 */
import { DEFAULT_REPEAT_OPTIONS, type FullScanResult, type RepeatOptions } from "@loopguard/core/repeat"
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { forEachStdinChunk } from "../io.js"
import { loadCliConfig } from "../session.js"
import { textFlag } from "../text-flag.js"
import { scanJsonLines } from "./scan-jsonl.js"
import { StreamingScan } from "./scan-stream.js"

const intFlag = (name: string, description: string) => Flag.Int(name).pipe(Flag.withDescription(description), Flag.optional)

export const flagToField: ReadonlyArray<readonly [string, keyof RepeatOptions]> = [
  ["--window", "window"],
  ["--threshold", "threshold"],
  ["--min-block", "minBlock"],
  ["--min-distinct", "minDistinct"]
]

/** Both rules, one line each. */
export const plainVerdict = (r: FullScanResult): string =>
  [
    r.repeat ? `repeat: yes — tripped at token ${r.token} (period ${r.period})` : "repeat: no",
    r.long ? `long repeat: yes — tripped at token ${r.long.token} (character ${r.long.char})` : "long repeat: no"
  ].join("\n")

export const scanCommand = Command.make(
  "scan",
  {
    window: intFlag("window", `tokens that count (default ${DEFAULT_REPEAT_OPTIONS.window})`),
    threshold: intFlag("threshold", `back-to-back repeats that trip (default ${DEFAULT_REPEAT_OPTIONS.threshold})`),
    minBlock: intFlag("min-block", `shortest block length in tokens (default ${DEFAULT_REPEAT_OPTIONS.minBlock})`),
    minDistinct: intFlag("min-distinct", `distinct tokens a block must hold (default ${DEFAULT_REPEAT_OPTIONS.minDistinct})`),
    jsonl: Flag.Boolean("jsonl").pipe(Flag.withDefault(false), Flag.withDescription("each stdin line is a JSON string; print one JSON verdict per line")),
    config: textFlag("config").pipe(Flag.optional, Flag.withDescription("config file (repeat.*, input.maxLineBytes); the flags above win over it"))
  },
  (flags) =>
    Effect.gen(function* () {
      // The flags win over the config file and the LOOPGUARD_REPEAT_* variables, as every command's do.
      const given: Record<keyof RepeatOptions, Option.Option<number>> = { window: flags.window, threshold: flags.threshold, minBlock: flags.minBlock, minDistinct: flags.minDistinct }
      const overrides = flagToField.flatMap(([flag, field]) => {
        const value = given[field]
        return Option.isSome(value) ? [{ path: `repeat.${field}`, value: value.value, flag }] : []
      })
      const config = yield* loadCliConfig({ ...(Option.isSome(flags.config) ? { configPath: flags.config.value } : {}), overrides })
      const { window, threshold, minBlock, minDistinct } = config.repeat
      // Checked as the guard checks them when the config loaded (an error names the flag).
      const options: RepeatOptions = { window, threshold, minBlock, minDistinct }
      if (!flags.jsonl) {
        const scan = new StreamingScan(options)
        yield* forEachStdinChunk((text) => scan.push(text))
        yield* Console.log(plainVerdict(scan.end()))
        return
      }
      yield* scanJsonLines(options, config.input.maxLineBytes)
    })
).pipe(Command.withDescription("Report whether and where in-stream repetition trips on text from stdin"))
