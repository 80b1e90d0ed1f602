/**
 * What `loopguard chat` offers as a shell. The default shell runs commands with the person's rights
 * without asking each time; on a terminal, chat asks once at the start whether that is wanted
 * (`tools.chatShell: ask`), so nobody gets an unapproved shell in the current folder by surprise.
 */
import type { LoopguardConfig, ToolDefinition } from "@loopguard/effect"
import type { AskLine } from "../pause/pause-prompt.js"
import { runTools } from "../tools/run-tools.js"

export type ShellMode = "run" | "approve" | "off"

export const shellQuestion = (cwd: string): string =>
  `The model can run shell commands (bash) in ${cwd} with your rights.\n` +
  "  y = run them without asking · a = ask me before each command (Enter) · n = no shell\nShell? [y/A/n] "

/** The answer typed: `y` run, `n` off, anything else (Enter included) approve each command; end of input is no shell. */
export const parseShellAnswer = (answer: string | null): ShellMode => {
  if (answer === null) return "off"
  const a = answer.trim().toLowerCase()
  if (a === "y" || a === "yes") return "run"
  if (a === "n" || a === "no") return "off"
  return "approve"
}

/** The mode the config and the terminal give: `ask` asks on a terminal and runs without one. */
export const chooseShell = async (config: LoopguardConfig, cwd: string, terminal: boolean, ask: AskLine): Promise<ShellMode> => {
  if (config.tools.approveCommands) return "approve"
  const mode = config.tools.chatShell
  if (mode !== "ask") return mode
  return terminal ? parseShellAnswer(await ask(shellQuestion(cwd))) : "run"
}

/** The chat's tool set for a shell mode. */
export const toolsFor = (mode: ShellMode, cwd: string, config: LoopguardConfig, apiKeyEnv: string): ReadonlyArray<ToolDefinition> => {
  const tools = runTools(cwd, { ...config, tools: { ...config.tools, approveCommands: mode === "approve" } }, apiKeyEnv)
  return mode === "off" ? tools.filter((t) => t.spec.name !== "bash") : tools
}

export const SHELL_WORDS: Readonly<Record<ShellMode, string>> = {
  run: "shell: bash runs commands without asking (not a sandbox: your rights)",
  approve: "shell: bash asks you before each command",
  off: "shell: off (no bash tool)"
}
