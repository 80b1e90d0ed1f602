/**
 * The files a shell command names as what it writes, read from the command line only (the command
 * is never run again): redirections (`> f`, `>> f`, `2> f`), `tee`, `touch`, the destination of
 * `cp` / `mv`, and the file of `sed -i`. Quoted paths are unquoted; `/dev/null` and `&N` are not
 * files. A command that writes in a way not read here (a script, `python -c …`) gives no path: the
 * report then names the command instead. Never throws.
 */
import { isWritingCommand } from "../try-best/tool-kinds.js"

const REDIRECT = /(?:^|[^<>&\d])\d?>{1,2}\s*("[^"]+"|'[^']+'|[^\s;&|<>()]+)/g

const unquote = (word: string): string => word.replace(/^(["'])(.*)\1$/, "$2")

const isFile = (path: string): boolean => path !== "" && path !== "/dev/null" && !path.startsWith("&") && !path.startsWith("-")

/** The words of each simple command (split at `;`, `&&`, `||`, `|`), quotes kept together. */
const simpleCommands = (command: string): Array<Array<string>> =>
  command
    .split(/;|&&|\|\||\|/)
    .map((part) => (part.replace(/\d?>{1,2}\s*("[^"]+"|'[^']+'|\S+)/g, " ").match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map(unquote))

const operandsOf = (words: ReadonlyArray<string>): Array<string> => words.slice(1).filter((w) => !w.startsWith("-"))

const writtenBy = (words: ReadonlyArray<string>): Array<string> => {
  const [name] = words
  const operands = operandsOf(words)
  if (name === "tee" || name === "touch") return operands
  if ((name === "cp" || name === "mv") && operands.length >= 2) return [operands.at(-1)!]
  if (name === "sed" && words.some((w) => /^-[a-zA-Z]*i/.test(w)) && operands.length >= 2) return [operands.at(-1)!]
  return []
}

/** Quoted text blanked out (a `>` inside quotes is no redirection), except a quoted redirection target. */
const maskQuoted = (command: string): string =>
  command.replace(/"[^"]*"|'[^']*'/g, (quoted, at: number) => (/>\s*$/.test(command.slice(0, at)) ? quoted : " ".repeat(quoted.length)))

/** The paths a shell command writes, as far as its text says, in order and without repeats. */
export const shellWrittenPaths = (command: string): Array<string> => {
  const paths = [...maskQuoted(command).matchAll(REDIRECT)].map((m) => unquote(m[1]!))
  for (const words of simpleCommands(command)) paths.push(...writtenBy(words))
  return [...new Set(paths.filter(isFile))]
}

/** A command that writes files whose paths its text does not give. */
export const writesUnnamedFiles = (command: string): boolean => isWritingCommand(command) && shellWrittenPaths(command).length === 0
