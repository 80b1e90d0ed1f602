/**
 * An empty value of a flag that takes text is refused by the parser, naming the flag, before the
 * command does anything (`run --cwd=` used to run the tools in the current folder, `--model=` sent
 * an empty model id). The commands are parsed in process; their handlers fail fast if reached.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { CliOutput, Command } from "effect/cli"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { parseErrorLine } from "./cli-output.js"
import { auditCommand } from "./commands/audit.js"
import { chatCommand } from "./commands/chat.js"
import { runCommand } from "./commands/run.js"
import { sessionsCommand } from "./commands/sessions.js"

/** Any of the commands (they differ in every type parameter). */
type AnyCommand = Command.Command<any, any, any, any, any>

/** The one line the parser's error becomes, or "" when the command parsed. */
const parseLine = async (command: AnyCommand, args: ReadonlyArray<string>): Promise<string> => {
  let line = ""
  const capture: CliOutput.Presenter = {
    present: (event) => Effect.sync(() => void (event._tag === "InvalidInvocation" && (line = parseErrorLine(event.commandPath, event.errors, args))))
  }
  await Effect.runPromise(
    Command.runWith(command, { version: "test" })(args).pipe(
      Effect.ignore,
      Effect.provide(CliOutput.layerPresenter(capture)),
      Effect.provide(NodeServices.layer)
    ) as Effect.Effect<void>
  )
  return line
}

// A base URL that is no URL and a store folder that is not there: a handler reached fails at once.
const endpoint = ["--base-url", "not a url", "--model", "m"]
const cases: ReadonlyArray<readonly [string, AnyCommand, ReadonlyArray<string>]> = [
  ["cwd", runCommand, [...endpoint, "--prompt", "p", "--cwd="]],
  ["model", runCommand, ["--base-url", "not a url", "--model=", "--prompt", "p"]],
  ["prompt", runCommand, [...endpoint, "--prompt="]],
  ["config", runCommand, [...endpoint, "--prompt", "p", "--config", ""]],
  ["session", runCommand, [...endpoint, "--prompt", "p", "--session=  "]],
  ["api-key-env", chatCommand, [...endpoint, "--api-key-env="]],
  ["session-dir", chatCommand, [...endpoint, "--session-dir="]],
  ["html", auditCommand, ["no-such-log.jsonl", "--html="]],
  ["out", sessionsCommand, ["export", "s1", "--session-dir", "/no/such/loopguard/dir", "--out="]],
  ["older-than", sessionsCommand, ["prune", "--session-dir", "/no/such/loopguard/dir", "--older-than="]]
]

describe("an empty value of a text flag", () => {
  for (const [flag, command, args] of cases) {
    test(`--${flag}: refused by the parser, naming the flag`, async () => {
      expect(await parseLine(command, args)).toContain(`: --${flag}: empty value; see`)
    }, 30_000)
  }

  test("every text flag of the CLI is made by textFlag (so none escapes the check)", () => {
    const sources = (dir: string): Array<string> =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) return sources(path)
        return path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith("text-flag.ts") ? [path] : []
      })
    expect(sources(import.meta.dir).filter((f) => readFileSync(f, "utf8").includes("Flag.String("))).toEqual([])
  })
})
