/**
 * Which branch of the Try-Best monitor a finished tool call feeds: edits, shell commands, or
 * neither (reads, searches, anything else). Decided from data, since agents name their tools
 * differently.
 */
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

/** A finished call failed: error state, or a non-zero exit code. */
export const failed = (part: ToolPart): boolean =>
  part.state === "error" || (typeof part.exitCode === "number" && part.exitCode !== 0)

/** The text a call produced, for output comparison: its output and its error message. */
export const resultText = (part: ToolPart): string =>
  [part.output, part.error].filter((s): s is string => typeof s === "string" && s !== "").join("\n")

