/**
 * How the command-line parser speaks: help only when `--help` asks for it; a parse error is one
 * line on stderr naming the flag (and the nearest known flag when there is one), and exit status 2.
 */
import { terminalSafe } from "./render/terminal-safe.js"
import { Effect } from "effect"
import { CliError, CliOutput } from "effect/cli"
import { NOT_EMPTY } from "./text-flag.js"

type ParserError = {
  readonly message: string
  readonly suggestions?: ReadonlyArray<string>
  readonly _tag?: string
  readonly option?: string
  readonly value?: string
  readonly expected?: string
}

/**
 * A flag's value the parser calls missing, said as it is: empty (`--model=`, refused by
 * text-flag.ts), or given but starting with "-" (`--older-than -5d`: the parser reads it as a flag,
 * so the value is not one the flag takes). Null for every other error.
 */
const valueProblem = (error: ParserError, argv: ReadonlyArray<string>): string | null => {
  if (error._tag !== "InvalidValue" || error.option === undefined) return null
  const flag = `--${error.option}`
  if (error.expected === NOT_EMPTY) return `${flag}: empty value`
  if (error.value !== "") return null
  const next = argv[argv.indexOf(flag) + 1]
  if (!argv.includes(flag) || next === undefined || !next.startsWith("-") || next === "--") return null
  return `${flag}: invalid value ${JSON.stringify(next)}: a value starting with "-" is read as a flag (if it is the value, write ${flag}=${next})`
}

/** The first line of a parser error, with the parser's "Did you mean" list folded onto it. */
export const oneLine = (error: ParserError, argv: ReadonlyArray<string> = []): string => {
  const explained = valueProblem(error, argv)
  if (explained !== null) return explained
  const first = error.message.split("\n")[0]!.trim()
  const suggestions = error.suggestions ?? []
  return suggestions.length > 0 ? `${first} (did you mean ${suggestions.join(" or ")}?)` : first
}

/** `loopguard scan: Unrecognized flag: --windo … (did you mean --window?); see loopguard scan --help` */
export const parseErrorLine = (commandPath: ReadonlyArray<string>, errors: ReadonlyArray<CliError.NonShowHelpErrors>, argv: ReadonlyArray<string> = []): string => {
  const where = commandPath.join(" ")
  const first = errors[0]
  const what = first ? oneLine(first as ParserError, argv) : "bad usage"
  return `${where}: ${what}; see ${where} --help`
}

/** The Presenter for `Command.run`: full help on `--help`, one line on stderr for anything else. */
export const oneLinePresenter: CliOutput.Presenter = {
  present: (event) => {
    switch (event._tag) {
      case "InvalidInvocation":
        return Effect.sync(() => void process.stderr.write(terminalSafe(parseErrorLine(event.commandPath, event.errors, process.argv)) + "\n"))
      case "Help":
        return event.reason === "Requested"
          ? CliOutput.defaultPresenter.present(event)
          : Effect.sync(() => void process.stderr.write(`${event.commandPath.join(" ")}: a command is missing; see ${event.commandPath.join(" ")} --help\n`))
      case "Version":
        return CliOutput.defaultPresenter.present(event)
    }
  }
}

/** A parser error already presented as one line: only the exit status is left to set. */
export const isParseError = (error: unknown): boolean => CliError.isCliError(error) && (error as { _tag: string })._tag === "ShowHelp"
