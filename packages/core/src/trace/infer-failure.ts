/**
 * Many recorded agents (SWE-agent among them) log a tool's output but not its exit status. For
 * such results the audit reads failure from the output, with a small table of unambiguous
 * signs; a result that records `exitCode` or `error` is never second-guessed.
 */
import { printedExitCode } from "../try-best/tool-kinds.js"

export interface FailureSign {
  readonly id: string
  readonly pattern: RegExp
}

/** Anchored where a bare word would also match quoted source code (e.g. `except ValueError:`). */
export const FAILURE_SIGNS: ReadonlyArray<FailureSign> = [
  { id: "traceback", pattern: /^Traceback \(most recent call last\):/m },
  { id: "exception-line", pattern: /^[A-Za-z_.]*(Error|Exception): /m },
  { id: "command-not-found", pattern: /: command not found$|^bash: .*: command not found/m },
  { id: "no-such-file", pattern: /No such file or directory/ },
  { id: "build-failure", pattern: /^\[ERROR\] BUILD FAILURE|^BUILD FAILURE|^BUILD FAILED/m },
  { id: "syntax-error-edit", pattern: /Your proposed edit has introduced new syntax error/ },
  { id: "no-replacement", pattern: /No replacement was performed/ },
  // OpenHands' editor refusing a call ("ERROR:" on a line of its own, then the reason).
  { id: "editor-error", pattern: /^ERROR:\s*\n(?:Invalid `\w+` parameter|File already exists|The path \S+ does not exist|Parameter `\w+` is required|No replacement was performed)/ },
  // Editors of other harnesses that refused an edit (Gemini CLI, OpenCode, Codex's apply_patch).
  { id: "edit-not-applied", pattern: /^Failed to edit\b|No edits made\.|^Error: oldString not found|^error: Failed to find expected lines|^String to replace not found in file/m },
  // Claude Code wraps a tool's refusal in this tag (its own log also sets `is_error`).
  { id: "tool-use-error", pattern: /^<tool_use_error>/ },
  { id: "compile-error", pattern: /^\[ERROR\] COMPILATION ERROR|: error: /m },
  // pytest's summary of a failing run, and pip refusing a requirement.
  { id: "test-failure", pattern: /^FAILED \S+::\S+|^(?:=+ )?\d+ failed\b/m },
  { id: "pip-error", pattern: /^ERROR: (?:No matching distribution found|Could not find a version that satisfies)/m }
]

/** The first sign of failure in a tool's output, or null. Never throws. */
export const inferFailure = (output: string, signs: ReadonlyArray<FailureSign> = FAILURE_SIGNS): FailureSign | null => {
  for (const sign of signs) if (sign.pattern.test(output)) return sign
  return null
}

/** How a tool result that recorded no exit status reads: failed or not, with the exit code its harness printed. */
export interface ReadResult {
  readonly failed: boolean
  readonly exitCode?: number
  readonly error?: string
}

/**
 * A tool result with no exit status of its own (a trace line without one, a Chat or Responses tool
 * message): the exit code its harness printed ("[The command completed with exit code 1.]", "Exit
 * code: 1") decides; without one, failure is read from the output's signs. The audit and the proxy
 * both read results so, so a verdict does not depend on which of them judged the run.
 */
export const readUnrecordedResult = (output: string): ReadResult => {
  const printed = printedExitCode(output)
  if (printed !== undefined) return printed !== 0 ? { failed: true, exitCode: printed, error: `exit code ${printed} (printed by the harness)` } : { failed: false, exitCode: printed }
  const sign = inferFailure(output)
  return sign === null ? { failed: false } : { failed: true, error: `failure read from the output (${sign.id})` }
}
