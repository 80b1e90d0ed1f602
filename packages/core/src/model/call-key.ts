/**
 * A tool call's input as the loop detectors compare it: two calls that do the same thing spelled
 * apart are one call. Whitespace in strings is trimmed and folded; in a shell command or a path,
 * `./f`, `$PWD/f` and `f` name one file; a shell call's `description` is no part of what it does.
 * Flags keep their order: the evidence quotes the call as the agent wrote it. Pure, never throws.
 */

const SHELL_FIELDS = new Set(["command", "cmd", "script"])
const PATH_FIELDS = new Set(["path", "file_path", "filePath", "absolute_path", "filename", "target_file"])

/** One shell word: a leading `./` or `$PWD/` dropped. */
const foldWord = (word: string): string => word.replace(/^(?:\$\{?PWD\}?\/|\.\/)(?=.)/, "")

/** A command line's spaces folded and its words' `./` dropped; a line with quotes or several lines keeps its words. */
export const foldCommand = (command: string): string => {
  const folded = command.trim().replace(/[ \t]+/g, " ")
  if (/["'`\\\n]/.test(folded)) return folded
  return folded.split(" ").map(foldWord).join(" ")
}

const foldValue = (value: unknown, key: string | null): unknown => {
  if (typeof value === "string") {
    if (key !== null && SHELL_FIELDS.has(key)) return foldCommand(value)
    return key !== null && PATH_FIELDS.has(key) ? foldWord(value.trim()) : value.trim().replace(/\s+/g, " ")
  }
  if (Array.isArray(value)) return value.map((v) => foldValue(v, key))
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(value as object).sort()) out[k] = foldValue((value as Record<string, unknown>)[k], k)
    return out
  }
  return value
}

/**
 * What a harness asks the model to say about a shell command beside it (Claude Code's and Gemini
 * CLI's `description`, Codex's `justification`): words about the call, reworded at will, that do
 * not change what runs.
 */
const COMMENTARY_FIELDS = new Set(["description", "justification", "explanation", "reason", "summary"])

/**
 * A shell call's input without its commentary, and a task handed to a sub-agent (Claude Code's `Task`:
 * its `prompt` is the task, its `description` a few words of label) without its label; any other input
 * as it is (a tool's `description` may be what it writes).
 */
const withoutCommentary = (input: unknown): unknown => {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input
  const fields = input as Record<string, unknown>
  const runs = [...SHELL_FIELDS].some((k) => typeof fields[k] === "string" || Array.isArray(fields[k]))
  if (!runs && typeof fields["prompt"] !== "string") return input
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !COMMENTARY_FIELDS.has(k)))
}

/** The call's input with keys sorted and its spelling folded (a shell call's commentary left out), as JSON. */
export const callInputKey = (input: unknown): string => JSON.stringify(foldValue(withoutCommentary(input), null)) ?? "null"

/**
 * The handle a harness gave a background shell (Claude Code's `bash_id` for `BashOutput`, `shell_id`
 * for `KillShell`): a new one each time the job is started again, so a restart loop (start the dev
 * server, read `EADDRINUSE`, kill it, again) would read as new calls every round. Only the action
 * cycle leaves it out: killing nine shells, or reading two builds in turn, are calls on different jobs.
 */
const JOB_HANDLE_FIELDS = new Set(["bash_id", "shell_id"])

const withoutJobHandle = (input: unknown): unknown => {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input
  const fields = input as Record<string, unknown>
  if (!Object.keys(fields).some((k) => JOB_HANDLE_FIELDS.has(k))) return input
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !JOB_HANDLE_FIELDS.has(k)))
}

/** `callInputKey` with a background shell's handle left out (`bash_id`, `shell_id`): which run of the job it was. */
export const jobAgnosticInputKey = (input: unknown): string => JSON.stringify(foldValue(withoutJobHandle(withoutCommentary(input)), null)) ?? "null"
