/**
 * Every flag that takes text (a path, a URL, a model id, a prompt, a session id) is made here, so an
 * empty value is refused in one place: `--cwd=` or `--model "$UNSET"` (a variable that expanded to
 * nothing) is an error naming the flag, exit 2, never the default, the current folder, an empty model
 * id or an empty prompt (docs/cli.md). The parser reports it; cli-output.ts words it.
 */
import { Flag } from "effect/cli"

/** What the parser's error says the value should have been (cli-output.ts: `--FLAG: empty value`). */
export const NOT_EMPTY = "a value that is not empty"

export const textFlag = (name: string): Flag.Flag<string> => Flag.String(name).pipe(Flag.filter((value) => value.trim() !== "", () => NOT_EMPTY))
