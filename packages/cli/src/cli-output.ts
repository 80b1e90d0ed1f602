/**
 * How the command-line parser speaks: help only when `--help` asks for it; a parse error is one
 * line on stderr naming the flag (and the nearest known flag when there is one), and exit status 2.
 */
import { terminalSafe } from "./render/terminal-safe.js"
import { Effect } from "effect"
import { CliError, CliOutput } from "effect/cli"

/** The first line of a parser error, with the parser's "Did you mean" list folded onto it. */
export const oneLine = (error: { readonly message: string; readonly suggestions?: ReadonlyArray<string> }): string => {
  const first = error.message.split("\n")[0]!.trim()
  const suggestions = error.suggestions ?? []
  return suggestions.length > 0 ? `${first} (did you mean ${suggestions.join(" or ")}?)` : first
}

/** `loopguard scan: Unrecognized flag: --windo … (did you mean --window?); see loopguard scan --help` */
export const parseErrorLine = (commandPath: ReadonlyArray<string>, errors: ReadonlyArray<CliError.NonShowHelpErrors>): string => {
  const where = commandPath.join(" ")
  const first = errors[0]
  const what = first ? oneLine(first as { message: string; suggestions?: ReadonlyArray<string> }) : "bad usage"
  return `${where}: ${what}; see ${where} --help`
}

/** The Presenter for `Command.run`: full help on `--help`, one line on stderr for anything else. */
export const oneLinePresenter: CliOutput.Presenter = {
  present: (event) => {
    switch (event._tag) {
      case "InvalidInvocation":
        return Effect.sync(() => void process.stderr.write(terminalSafe(parseErrorLine(event.commandPath, event.errors)) + "\n"))
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
