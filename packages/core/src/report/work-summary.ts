/**
 * What a run achieved and where it last failed, read from the session's stored replies, for the
 * report: files changed (paths), verification commands that passed, other commands with their exit
 * codes — not raw calls like `bash {"command":"ls 1"}`. Excluded replies (rolled back, replayed,
 * text tool calls) did not happen as far as the report is concerned.
 */
import type { Message, ToolPart } from "../model/message.js"
import { toolPartsOf } from "../model/message.js"
import { DEFAULT_TRY_BEST_OPTIONS, type TryBestOptions } from "../try-best/options.js"
import { classifyTool, failed, stringField } from "../try-best/tool-kinds.js"
import { isVerificationCommand, verificationMatcher } from "../try-best/verification.js"
import { shellWrittenPaths, writesUnnamedFiles } from "./shell-writes.js"

export interface ToolFailure {
  readonly step: number
  readonly tool: string
  /** The shell command, or the file an edit touched, when there is one. */
  readonly target?: string
  readonly exitCode?: number
  /** The first line of the error or output. */
  readonly detail: string
}

interface Call {
  readonly step: number
  readonly part: ToolPart
}

const callsOf = (messages: ReadonlyArray<Message>): Array<Call> =>
  messages.flatMap((m) => (m.role === "assistant" && m.excluded === undefined ? toolPartsOf(m).map((part) => ({ step: m.step, part })) : []))

const quote = (command: string) => {
  const one = command.replace(/\s+/g, " ").trim()
  return `\`${one.length > 80 ? one.slice(0, 77) + "..." : one}\``
}

const firstLine = (text: string | undefined) => (text ?? "").split("\n").map((l) => l.trim()).find((l) => l !== "")?.slice(0, 160) ?? ""

const editedPath = (part: ToolPart) => part.path ?? stringField(part.input, "path", "file_path", "filePath", "file")

/** What a finished, successful call wrote: an edit's path, or the files a shell command line names. */
const writtenPaths = (part: ToolPart, options: TryBestOptions): Array<string> => {
  if (part.state !== "completed" || part.notRun === true || failed(part)) return []
  const kind = classifyTool(part, options)
  if (kind.kind === "shell") return shellWrittenPaths(kind.command)
  const path = kind.kind === "edit" ? editedPath(part) : undefined
  return path === undefined ? [] : [path]
}

/** The files the run changed (edits and shell writes), in the order first changed. */
export const changedFiles = (messages: ReadonlyArray<Message>, options: TryBestOptions = DEFAULT_TRY_BEST_OPTIONS): Array<string> => {
  const files = new Set<string>()
  for (const { part } of callsOf(messages)) for (const path of writtenPaths(part, options)) files.add(path)
  return [...files]
}

/**
 * What shell commands that ran and failed may have written: the files their command lines name as
 * written (`echo hi > a.txt; false` wrote a.txt before it failed) and those that write files they do
 * not name. Not counted as changed (the failure may have come first), but not "no file changed" either.
 */
export const failedShellWrites = (
  messages: ReadonlyArray<Message>,
  options: TryBestOptions = DEFAULT_TRY_BEST_OPTIONS
): { readonly files: ReadonlyArray<string>; readonly commands: ReadonlyArray<string> } => {
  const files = new Set<string>()
  const commands = new Set<string>()
  for (const { part } of callsOf(messages)) {
    if ((part.state !== "completed" && part.state !== "error") || part.notRun === true || !failed(part)) continue
    const kind = classifyTool(part, options)
    if (kind.kind !== "shell") continue
    for (const path of shellWrittenPaths(kind.command)) files.add(path)
    if (writesUnnamedFiles(kind.command)) commands.add(kind.command)
  }
  return { files: [...files], commands: [...commands] }
}

/** Successful shell commands that wrote files their command line does not name (`rm -rf build`, a script). */
export const unnamedShellWrites = (messages: ReadonlyArray<Message>, options: TryBestOptions = DEFAULT_TRY_BEST_OPTIONS): Array<string> => {
  const commands = new Set<string>()
  for (const { part } of callsOf(messages)) {
    if (part.state !== "completed" || part.notRun === true || failed(part)) continue
    const kind = classifyTool(part, options)
    if (kind.kind === "shell" && writesUnnamedFiles(kind.command)) commands.add(kind.command)
  }
  return [...commands]
}

/** Calls answered without running, by what they would have done: "not run `rm -rf build` ×2 (why)". */
const notRunLines = (calls: ReadonlyArray<Call>, options: TryBestOptions): Array<string> => {
  const seen = new Map<string, { times: number; why: string }>()
  for (const { part } of calls) {
    if (part.notRun !== true) continue
    const kind = classifyTool(part, options)
    const what = kind.kind === "shell" ? quote(kind.command) : kind.kind === "edit" && editedPath(part) !== undefined ? `${part.name} ${editedPath(part)}` : part.name
    seen.set(what, { times: (seen.get(what)?.times ?? 0) + 1, why: firstLine(part.error) })
  }
  return [...seen].map(([what, n]) => `not run ${what}${n.times > 1 ? ` ×${n.times}` : ""}${n.why !== "" ? ` (${n.why})` : ""}`)
}

/** The achievements, newest facts winning: changed files, then passing checks, then other commands, then calls not run. */
export const summarizeWork = (messages: ReadonlyArray<Message>, options: TryBestOptions = DEFAULT_TRY_BEST_OPTIONS): Array<string> => {
  const matcher = verificationMatcher(options)
  const edits = new Map<string, number>()
  const commands = new Map<string, { runs: number; exitCode: number | null; verification: boolean }>()
  const calls = callsOf(messages)
  for (const { part } of calls) {
    if ((part.state !== "completed" && part.state !== "error") || part.notRun === true) continue
    const kind = classifyTool(part, options)
    if (kind.kind === "edit") {
      const path = editedPath(part)
      if (path !== undefined && !failed(part)) edits.set(path, (edits.get(path) ?? 0) + 1)
    } else if (kind.kind === "shell") {
      const before = commands.get(kind.command)
      commands.delete(kind.command)
      const exitCode = part.state === "error" ? null : (part.exitCode ?? 0)
      commands.set(kind.command, { runs: (before?.runs ?? 0) + 1, exitCode, verification: isVerificationCommand(kind.command, matcher) })
    }
  }
  const files = [...edits].map(([path, n]) => `changed ${path}${n > 1 ? ` (${n} edits)` : ""}`)
  const checks = [...commands].filter(([, c]) => c.verification && c.exitCode === 0).map(([cmd]) => `checks passed: ${quote(cmd)}`)
  const others = [...commands]
    .filter(([, c]) => !(c.verification && c.exitCode === 0))
    .map(([cmd, c]) => `ran ${quote(cmd)}${c.runs > 1 ? ` ×${c.runs}` : ""} (${c.exitCode === null ? "did not finish" : `exit ${c.exitCode}`}${c.runs > 1 ? ", last run" : ""})`)
  return [...files, ...checks, ...others.slice(-10), ...notRunLines(calls, options).slice(-5)].slice(-20)
}

/** The last tool call that failed, with its step and tool. */
export const lastToolFailure = (messages: ReadonlyArray<Message>, options: TryBestOptions = DEFAULT_TRY_BEST_OPTIONS): ToolFailure | null => {
  // A call answered without running is not where the work failed.
  const last = callsOf(messages).filter(({ part }) => (part.state === "completed" || part.state === "error") && part.notRun !== true && failed(part)).at(-1)
  if (last === undefined) return null
  const { step, part } = last
  const kind = classifyTool(part, options)
  const target = kind.kind === "shell" ? kind.command : kind.kind === "edit" ? editedPath(part) : undefined
  return {
    step,
    tool: part.name,
    ...(target !== undefined ? { target } : {}),
    ...(part.exitCode !== undefined ? { exitCode: part.exitCode } : {}),
    detail: firstLine(part.error) || firstLine(part.output)
  }
}

/** "step 3, tool bash (`npm test`): exit 1: FAIL src/a.test.ts" */
export const formatToolFailure = (f: ToolFailure): string =>
  `step ${f.step}, tool ${f.tool}${f.target !== undefined ? ` (${quote(f.target)})` : ""}: ` +
  [f.exitCode !== undefined ? `exit ${f.exitCode}` : "failed", f.detail].filter((s) => s !== "").join(": ")
