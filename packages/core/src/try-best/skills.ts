/**
 * The built-in hand-off skills (docs/try-best.md, after MiMo Code's): one playbook per harness, `codex` (Codex CLI) and
 * `claude-code` (Claude Code CLI), telling the model how to drive that harness and with which
 * flags. Data plus one pure function each (the argument vector); running it is the caller's job.
 *
 * Sandbox-safe by default, as MiMo Code's skills recommend: Codex runs `codex exec` with
 * `--sandbox workspace-write --ask-for-approval never` (edits confined to the workspace, no
 * interactive approvals that would hang a non-interactive run); Claude Code runs in print mode
 * `-p` with `--permission-mode acceptEdits`. The unsandboxed flags (`--yolo`,
 * `--dangerously-skip-permissions`) are used only in `isolated` mode, which MiMo Code's skills allow only
 * for disposable, isolated environments. A skill is offered only when its command resolves on PATH.
 */
import { HANDOFF_COMMANDS, HANDOFF_HARNESS_NAMES, HANDOFF_TOOL_NAMES, type HandoffTarget } from "./handoff.js"

/** `sandboxed` (default) keeps the harness inside the workspace; `isolated` drops its guard rails (throwaway machines only). */
export type SkillMode = "sandboxed" | "isolated"

export interface HandoffSkill {
  /** The skill's name as MiMo Code's hand-off skills spell it. */
  readonly name: "codex" | "claude-code"
  readonly target: HandoffTarget
  /** The executable that must resolve on PATH. */
  readonly command: string
  /** The tool name under which a runtime offers the skill to the model. */
  readonly toolName: string
  readonly description: string
  /** The playbook the model follows (given with the hand-off and as the tool's description). */
  readonly playbook: string
  /** The argument vector for one task, after the command. */
  readonly argv: (task: string, mode: SkillMode) => ReadonlyArray<string>
}

const CODEX_PLAYBOOK = [
  "Drive Codex CLI non-interactively with `codex exec` (never its interactive TUI).",
  "Default invocation: `codex exec --sandbox workspace-write --ask-for-approval never \"<task>\"` — edits stay inside the workspace and no approval prompt can stall the run.",
  "`--yolo` (no sandbox, no approvals) is for isolated, disposable environments only; never use it on a developer's machine.",
  "Give Codex the whole task in one message: the user's goal, the workspace state, the approach that failed, and every validation requirement. Never pass credentials.",
  "Read its output, inspect the workspace changes, send follow-up work back to Codex, and report the outcome once validation passes."
].join("\n")

const CLAUDE_PLAYBOOK = [
  "Use this skill only because the user explicitly chose Claude Code for this work.",
  "Default invocation: print mode, `claude -p \"<task>\" --permission-mode acceptEdits` — one non-interactive run that may edit files in the workspace.",
  "For long work Claude Code also offers an interactive session in tmux and background runs (`--bg`); use them only when print mode cannot finish the task.",
  "`--dangerously-skip-permissions` is for isolated, disposable environments only.",
  "Give Claude Code the whole task: goal, workspace state, the failed approach and every validation requirement. Never pass credentials.",
  "Read its answer, inspect the workspace changes, send follow-up work back to Claude Code, and report the outcome once validation passes."
].join("\n")

export const HANDOFF_SKILLS: Readonly<Record<HandoffTarget, HandoffSkill>> = {
  codex: {
    name: "codex",
    target: "codex",
    command: HANDOFF_COMMANDS.codex,
    toolName: HANDOFF_TOOL_NAMES.codex,
    description: `Hand a task to ${HANDOFF_HARNESS_NAMES.codex} (codex exec, sandboxed to the workspace) and return its answer.`,
    playbook: CODEX_PLAYBOOK,
    argv: (task, mode) =>
      mode === "isolated" ? ["exec", "--yolo", task] : ["exec", "--sandbox", "workspace-write", "--ask-for-approval", "never", task]
  },
  claude: {
    name: "claude-code",
    target: "claude",
    command: HANDOFF_COMMANDS.claude,
    toolName: HANDOFF_TOOL_NAMES.claude,
    description: `Hand a task to ${HANDOFF_HARNESS_NAMES.claude} (claude -p, edits accepted in the workspace) and return its answer.`,
    playbook: CLAUDE_PLAYBOOK,
    argv: (task, mode) =>
      mode === "isolated" ? ["-p", task, "--dangerously-skip-permissions"] : ["-p", task, "--permission-mode", "acceptEdits"]
  }
}

/** The skills whose command resolves (the runtime passes its PATH lookup). */
export const availableSkills = (hasCommand: (command: string) => boolean): ReadonlyArray<HandoffSkill> =>
  Object.values(HANDOFF_SKILLS).filter((s) => hasCommand(s.command))

/** One POSIX shell word: the text in single quotes, any single quote closed, escaped and reopened. */
export const shellWord = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`

/** The whole command line of a skill run, every argument quoted (the task never reaches a shell unquoted). */
export const skillCommandLine = (skill: HandoffSkill, task: string, mode: SkillMode): string =>
  [skill.command, ...skill.argv(task, mode)].map(shellWord).join(" ")
