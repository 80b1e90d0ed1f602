import { describe, expect, test } from "bun:test"
import { CliError } from "effect/cli"
import { oneLine, parseErrorLine } from "./cli-output.js"

describe("parse errors as one line", () => {
  test("an unknown flag names the flag and folds the suggestion onto the same line", () => {
    const error = new CliError.UnrecognizedOption({ option: "--windo", command: ["loopguard", "scan"], suggestions: ["--window"] })
    const line = parseErrorLine(["loopguard", "scan"], [error])
    expect(line).toBe("loopguard scan: Unrecognized flag: --windo in command loopguard scan (did you mean --window?); see loopguard scan --help")
    expect(line).not.toContain("\n")
  })

  test("a bad value names the flag and the value", () => {
    const error = new CliError.InvalidValue({ option: "window", value: "abc", expected: "an integer", kind: "flag" })
    expect(oneLine(error)).toBe('Invalid value for flag --window: "abc". Expected: an integer')
  })

  test("a missing flag names it; only the first error is printed", () => {
    const missing = new CliError.MissingOption({ option: "base-url" })
    const other = new CliError.MissingOption({ option: "model" })
    const line = parseErrorLine(["loopguard", "run"], [missing, other])
    expect(line).toContain("--base-url")
    expect(line).not.toContain("--model")
  })
})
