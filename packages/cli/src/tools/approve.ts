/**
 * `--approve-commands`: the person at the terminal says yes before each shell command runs.
 * Without a terminal there is no one to ask, so every command is denied rather than run
 * unseen.
 */
import type { ToolAuthorization } from "@loopguard/effect/tools"
import type { AskLine } from "../pause/pause-prompt.js"

/** Allows only on an explicit yes. */
export type ApproveCommand = (command: string) => Promise<ToolAuthorization>

export const NO_TERMINAL = "command approval is on (--approve-commands) but there is no terminal to ask on, so the command was not run"
export const DENIED = "the user did not approve this command; it was not run"

const questionOf = (command: string): string => {
  const shown = command.length > 400 ? command.slice(0, 397) + "..." : command
  return `\nloopguard: the model wants to run:\n  ${shown.replace(/\n/g, "\n  ")}\nRun it? [y/N] `
}

export const terminalApproval = (isTTY: boolean, ask: AskLine): ApproveCommand =>
  isTTY
    ? async (command) =>
        /^\s*y(es)?\s*$/i.test((await ask(questionOf(command))) ?? "") ? { allowed: true } : { allowed: false, reason: DENIED }
    : async () => ({ allowed: false, reason: NO_TERMINAL })
