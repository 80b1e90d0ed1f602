/**
 * Which branch of the Try-Best monitor a finished tool call feeds: edits, shell commands, or
 * neither (reads, searches, anything else). Decided from data, since agents name their tools
 * differently.
 */
import { insideContainer } from "../loops/command-skeleton.js"
import type { ToolPart } from "../model/message.js"
import type { TryBestOptions } from "./options.js"

export type ToolKind =
  | { readonly kind: "edit" }
  | { readonly kind: "shell"; readonly command: string }
  | { readonly kind: "other" }

/** Whether a value is a plain object. */
export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** The first of the keys whose value in the input is a string. */
export const stringField = (input: unknown, ...keys: ReadonlyArray<string>): string | undefined => {
  if (!isRecord(input)) return undefined
  for (const key of keys) {
    const value = input[key]
    if (typeof value === "string") return value
  }
  return undefined
}

/**
 * The command line of a shell call: `command` or `cmd` as a string, or an argv array joined by
 * spaces (Codex's `["bash", "-lc", "npm test"]`; the `bash -lc` wrapper is stripped later).
 */
export const commandOf = (input: unknown): string | undefined => {
  if (typeof input === "string") return input
  if (!isRecord(input)) return undefined
  for (const key of ["command", "cmd"]) {
    const value = input[key]
    if (typeof value === "string") return value
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string")) return value.join(" ")
  }
  return undefined
}

const OTHER: ToolKind = { kind: "other" }
const EDIT: ToolKind = { kind: "edit" }

/** Whether a tool part is a shell command, an edit or something else, by name and input. */
export const classifyTool = (part: ToolPart, options: TryBestOptions): ToolKind => {
  const name = part.name.toLowerCase()
  if (options.editTools.some((t) => t.toLowerCase() === name)) {
    const commands = Object.entries(options.editToolCommands).find(([tool]) => tool.toLowerCase() === name)?.[1]
    if (commands === undefined) return EDIT
    const command = stringField(part.input, "command")
    return command !== undefined && commands.includes(command) ? EDIT : OTHER
  }
  if (options.shellTools.some((t) => t.toLowerCase() === name)) {
    const command = commandOf(part.input)
    return command !== undefined && command.trim() !== "" ? { kind: "shell", command } : OTHER
  }
  if (options.diffIsEdit && typeof part.diff === "string" && part.diff.trim() !== "") return EDIT
  if (options.commandInputIsShell) {
    const command = stringField(part.input, "command")
    if (command !== undefined && command.trim() !== "") return { kind: "shell", command }
  }
  return OTHER
}

/** A finished call failed: error state, or a non-zero exit code (recorded, or printed by its harness). */
export const failed = (part: ToolPart): boolean => {
  const code = typeof part.exitCode === "number" ? part.exitCode : printedExitCode(part.output)
  if (code === 1 && isNoMatch(part)) return false
  if (part.state === "error") return true
  return code !== undefined && code !== 0
}

// grep, rg, ag, ack, git grep, pgrep and pidof answer "nothing matched" with exit status 1 and no
// output (a count of 0 with `-c`): alone
// (after a `cd` or an `export`), or as a pipeline's last stage (`pip list | grep '^urllib3 1'`),
// whose status is the pipeline's. Also run through `bash -lc`, as Codex does.
const SEARCH = String.raw`(?:grep|egrep|fgrep|rg|ag|ack|git\s+grep|pgrep|pidof)\b[^|;&]*$`
const SEARCH_ALONE = new RegExp(String.raw`^\s*(?:(?:cd\s+\S+|export\s+\S+)\s*(?:&&|;)\s*)*` + SEARCH)
const SEARCH_LAST_STAGE = new RegExp(String.raw`[^|]\|\s*` + SEARCH)
const SHELL_WRAPPER = /^\s*(?:ba|z)?sh\s+-\w*c\s+(['"]?)([\s\S]*)\1\s*$/

/**
 * The command line with its quoted words and `2>&1`-style redirections blanked: their `|` and `&` are
 * no operators. A command run in a container is read as the command inside it (its status is that one's).
 */
const operatorsOnly = (command: string): string => {
  const inner = insideContainer(SHELL_WRAPPER.exec(command)?.[2] ?? command)
  return inner.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''").replace(/\d*>&\d*/g, " ")
}

/** What a search that found nothing prints: nothing, or a count of 0 (`grep -c`: `0`, or `a.log:0` per file). */
const foundNothing = (content: string): boolean => content === "" || content.split("\n").every((line) => /^(?:\S*:)?0$/.test(line.trim()))

/**
 * A search that matched nothing (exit status 1, nothing printed but its harness's status): an
 * answer, not a failure. Exploring many names that are not there is how code is read.
 */
export const isNoMatch = (part: Pick<ToolPart, "input" | "output" | "error">): boolean => {
  const command = shellTextOf(part)
  if (command === undefined || !foundNothing(commandContent(part.output ?? ""))) return false
  const line = operatorsOnly(command)
  return SEARCH_ALONE.test(line) || SEARCH_LAST_STAGE.test(line)
}

/** The text a call produced, for output comparison: its output and its error message. */
export const resultText = (part: ToolPart): string =>
  [part.output, part.error].filter((s): s is string => typeof s === "string" && s !== "").join("\n")


/**
 * What a tool call is to a loop detector, across harnesses: a shell command, an edit (a file
 * change), a read (files, listings, searches, pages), bookkeeping (think, todo lists: they say
 * the same every time and learn nothing), or something else (finish, submit, unknown tools).
 */
export type ToolRole = "shell" | "edit" | "read" | "bookkeeping" | "other"

/** Tools that run code given as `code` (OpenHands' IPython cell): shell-like for loop detection. */
const CODE_TOOLS: ReadonlyArray<string> = ["execute_ipython_cell", "ipython", "python", "run_python", "jupyter"]

const named = (list: ReadonlyArray<string>, name: string): boolean => list.some((t) => t.toLowerCase() === name)

/**
 * The role of a tool call, by name and input (tables in options.ts). Codex's `shell` with an argv
 * that runs `apply_patch` is an edit; OpenHands' `str_replace_editor view` is a read.
 */
export const toolRole = (part: Pick<ToolPart, "name" | "input" | "diff">, options: TryBestOptions): ToolRole => {
  const name = part.name.toLowerCase()
  if (named(options.bookkeepingTools, name)) return "bookkeeping"
  const kind = classifyTool(part as ToolPart, options)
  if (kind.kind === "edit") return "edit"
  if (kind.kind === "shell") return /^\s*apply_patch\b/.test(kind.command) ? "edit" : "shell"
  if (name === "apply_patch") return "edit"
  // An empty command to a shell tool reads a running process (OpenHands' `is_input`): a poll.
  if (named(options.shellTools, name) && commandOf(part.input)?.trim() === "") return "shell"
  if (named(CODE_TOOLS, name) && stringField(part.input, "code") !== undefined) return "shell"
  if (named(options.readTools, name)) return "read"
  // A multi-purpose editor's non-edit commands (view) read.
  if (Object.keys(options.editToolCommands).some((t) => t.toLowerCase() === name)) return "read"
  return "other"
}

/** The command a shell-role call runs: its command line, or the code of an IPython cell. */
export const shellTextOf = (part: Pick<ToolPart, "input">): string | undefined => commandOf(part.input) ?? stringField(part.input, "code")

/** The file an edit-role call names, under the spellings the harnesses use. */
export const editPathOf = (part: Pick<ToolPart, "input" | "path">): string | undefined =>
  part.path ?? stringField(part.input, "path", "file_path", "absolute_path", "filePath", "filename", "target_file")

// How harnesses print a shell command's exit status into its output when they record none apart:
// OpenHands "[The command completed with exit code 1.]" / "[Command finished with exit code 1]",
// Codex / Gemini CLI "Exit code: 1", Claude Code "Exit code 1", Go-style "exit status 1",
// SWE-agent "(exit code 1)", pi "Command exited with code 1", "[Process exited with code 1]".
const PRINTED_EXIT =
  /\[(?:The command|Command) (?:completed|finished)(?: with)? exit code (-?\d+)\.?\]|^\s*[Ee]xit [Cc]ode:?\s*(-?\d+)\s*$|^\s*exit status (-?\d+)\s*$|\(exit code (-?\d+)\)\s*$|^\s*\[?(?:Command|Process) exited with code (-?\d+)\]?\.?\s*$/gm

/**
 * The exit code a harness printed into a tool's output, or undefined. The last one wins: a
 * harness appends its status after the command's own output, which may quote older ones.
 * Never throws.
 */
export const printedExitCode = (output: string | undefined): number | undefined => {
  if (output === undefined || output === "") return undefined
  // A harness puts its status line at the end, or (Codex) in a header: a long output is not scanned whole.
  const tail = output.length > 2000 ? output.slice(-2000) : output
  let code: number | undefined
  for (const m of tail.matchAll(PRINTED_EXIT)) {
    const text = m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5]
    if (text !== undefined) code = Number.parseInt(text, 10)
  }
  if (code !== undefined) return code
  const header = CODEX_STATUS_HEADER.exec(output.slice(0, 200))
  return header === null ? undefined : Number.parseInt(header[1]!, 10)
}

const CODEX_STATUS_HEADER = /^Exit code: (-?\d+)\s*\nWall time:/

// Status lines harnesses add around a command's own output (see printedExitCode for the codes).
const OPENHANDS_STATUS = /^\[(?:(?:The command|Command) (?:completed|finished)(?: with)? exit code -?\d+\.?|Current working directory: [^\]\n]*|Python interpreter: [^\]\n]*|Below is the output of the previous command\.)\]\s*$/gm
const CODEX_HEADER = /^Exit code: -?\d+\s*\nWall time: [^\n]*\n(?:Total output lines: \d+\s*\n)?Output:\s*\n?/
// Claude Code writes a failed command's status on its own first line: "Exit code 1" (no colon), then the output.
const CLAUDE_EXIT_HEAD = /^Exit code -?\d+[ \t]*(?:\n|$)/
// Codex 0.17x's `exec_command`: a chunk id that differs every call, then the status, then the output.
const CODEX_EXEC_HEADER = /^Chunk ID: [^\n]*\nWall time: [^\n]*\n(?:Process exited with code -?\d+\s*\n)?(?:Process running with session ID [^\n]*\n)?(?:Original token count: \d+\s*\n)?Output:\s*\n?/
// Qwen Code leaves the Command line out of a call made from its code mode.
const GEMINI_REPORT = /^(?:Command: [^\n]*\n)?Directory: [^\n]*\n(?:Output|Stdout): ([\s\S]*?)\n(?:Stderr: ([\s\S]*?)\n)?Error: ([^\n]*)\nExit Code: [^\n]*(?:\n(?:Signal|Background PIDs|Process Group PGID): [^\n]*)*\s*$/

/**
 * What a command itself printed, without the status its harness wraps around it (OpenHands'
 * "[The command completed with exit code 0.]", Gemini CLI's Command/Directory/…/PGID report and its
 * newer Output/…/PGID one inside <untrusted_context> tags,
 * Codex's "Exit code / Wall time / Output:" header, an "Exit code: 1" line at the end). Two commands that print nothing then print
 * the same: nothing. Never throws; an output in no known wrapping is returned as it is.
 */
export const commandContent = (output: string): string => {
  const unwrapped = UNTRUSTED_WRAPPER.exec(output)
  const text = unwrapped === null ? output : unwrapped[1]!
  const gemini = GEMINI_REPORT.exec(text) ?? (unwrapped !== null || GEMINI_STATUS_TAIL.test(text.slice(-200)) ? GEMINI_SECTIONS.exec(text) : null)
  if (gemini !== null) {
    const parts = [gemini[1], gemini[2], gemini[3]].map((p) => (p ?? "").trim()).filter((p) => p !== "" && p !== "(empty)" && p !== "(none)")
    return parts.join("\n")
  }
  return text.replace(CODEX_HEADER, "").replace(CODEX_EXEC_HEADER, "").replace(CLAUDE_EXIT_HEAD, "").replace(OPENHANDS_STATUS, "").replace(TRAILING_EXIT, "").replace(NO_OUTPUT_PLACEHOLDER, "").trim()
}

// Gemini CLI (0.6x) wraps what a tool returns in <untrusted_context> tags, and reports a shell command
// as "Output: …" followed by only the status lines that apply (an error, a non-zero exit code, a
// signal, background pids, the process group).
const UNTRUSTED_WRAPPER = /^\s*<untrusted_context>\n([\s\S]*?)\n?<\/untrusted_context>\s*$/
const GEMINI_SECTIONS =
  /^Output: ([\s\S]*?)(?:\nError: ([^\n]*))?(?:\nExit Code: -?\d+)?(?:\nSignal: [^\n]*)?(?:\nBackground PIDs: [^\n]*)?(?:\nProcess Group PGID: \d+)?\s*$/
// Unwrapped, that report is told from a command that prints "Output: …" by its last status line.
const GEMINI_STATUS_TAIL = /\n(?:Exit Code: -?\d+|Process Group PGID: \d+)\s*$/

// A harness's exit status printed as the output's last line ("…\nExit code: 1", pi's "Command exited
// with code 1"): status, not what the command printed (a search that found nothing printed nothing).
const TRAILING_EXIT = /(?:^|\n)[ \t]*(?:[Ee]xit [Cc]ode:?[ \t]*-?\d+|exit status -?\d+|\[?(?:Command|Process) exited with code -?\d+\]?\.?)\s*$/

// What harnesses write when a command printed nothing: SWE-agent's sentence, pi's and OpenCode's "(no output)".
const NO_OUTPUT_PLACEHOLDER = /^\s*(?:Your command ran successfully and did not produce any output\.?|\(no output\))\s*$/

// Shell commands that write files (the trace labels count them as changes too). Codex edits
// through `apply_patch` run as a command. Git commands that move the working tree to another
// state (`git bisect good` checks out the next commit to test) change it too.
const WRITING_COMMAND =
  /\bsed\s+(?:-[a-zA-Z]*\s+)*-i|(?:^|[^<>&2])>{1,2}\s*(?!&|\/dev\/null)[\w./~-]|\btee\b|(?:^|[;&|]\s*)(?:cp|mv|rm|touch|mkdir|patch)\b|\bgit\s+(?:apply|checkout|switch|restore|stash|reset|pull|merge|rebase|cherry-pick|revert|am)\b|\bgit\s+bisect\s+(?:start|good|bad|new|old|skip|reset|run)\b|^\s*apply_patch\b|\bwrite_text\(|\.write\(|open\([^)]*['"][wa]\+?['"]/

// Output kept in a log as it is printed (`2>&1 | tee /tmp/mig-4f2a.log`, `> build.log`): a record of
// the run, not a change to the work. A new log name each time is how one command repeated looks new.
const LOG_WRITE = /(?:\|\s*tee\s+(?:-a\s+)?|(?:^|[^<>&2])>{1,2}\s*)["']?[^\s;&|"']+["']?/g
const isLogTarget = (write: string): boolean => /(?:^|[\s>])["']?(?:\/(?:var\/)?tmp\/\S+|\S+\.(?:log|out))["']?$/.test(write.trim())

/** Does a shell command write files (so the step counts as a file change)? Writing only its own output to a log is none. */
export const isWritingCommand = (command: string): boolean => {
  if (!WRITING_COMMAND.test(command)) return false
  const withoutLogs = command.replace(LOG_WRITE, (write) => (isLogTarget(write) ? " " : write))
  return withoutLogs === command || WRITING_COMMAND.test(withoutLogs)
}
