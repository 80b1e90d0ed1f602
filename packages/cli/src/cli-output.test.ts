import { describe, expect, test } from "bun:test"
import { CliError } from "effect/cli"
import { oneLine, parseErrorLine } from "./cli-output.js"
import { NOT_EMPTY } from "./text-flag.js"

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

describe("a flag's value the parser calls missing", () => {
  test("empty (refused by text-flag.ts): `--FLAG: empty value`", () => {
    const error = new CliError.InvalidValue({ option: "cwd", value: "", expected: NOT_EMPTY, kind: "flag" })
    expect(oneLine(error, ["run", "--cwd="])).toBe("--cwd: empty value")
  })

  test("given but starting with '-': invalid, named, and how to pass it", () => {
    const error = new CliError.InvalidValue({ option: "older-than", value: "", expected: "string", kind: "flag" })
    expect(oneLine(error, ["bun", "main.ts", "sessions", "prune", "--older-than", "-5d"])).toBe(
      '--older-than: invalid value "-5d": a value starting with "-" is read as a flag (if it is the value, write --older-than=-5d)'
    )
    // Nothing after the flag: it is missing indeed.
    expect(oneLine(error, ["sessions", "prune", "--older-than"])).toBe("Missing value for flag --older-than. Expected: string")
  })
})
