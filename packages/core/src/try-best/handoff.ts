/**
 * After a Try-Best pause (docs/try-best.md): hand the unfinished work to another agent harness (Codex CLI
 * or Claude Code CLI), or continue with the same model under a change-of-strategy instruction.
 * A harness of the current model's own family is never offered: it would likely repeat the
 * same blind spot.
 */
import { redactSecrets } from "./redact.js"

export type HandoffTarget = "codex" | "claude"

/** The command that must be installed for a target to be offered. */
export const HANDOFF_COMMANDS: Readonly<Record<HandoffTarget, string>> = { codex: "codex", claude: "claude" }

export const HANDOFF_HARNESS_NAMES: Readonly<Record<HandoffTarget, string>> = {
  codex: "Codex CLI",
  claude: "Claude Code CLI"
}

/** How to run each harness without its interactive UI, sandbox-safe (the flags of the built-in skills, `skills.ts`). */
export const HANDOFF_INVOCATIONS: Readonly<Record<HandoffTarget, string>> = {
  codex: 'codex exec --sandbox workspace-write --ask-for-approval never "<brief>"',
  claude: 'claude -p "<brief>" --permission-mode acceptEdits'
}

/** The tool a runtime offers for each harness skill (`skills.ts`). */
export const HANDOFF_TOOL_NAMES: Readonly<Record<HandoffTarget, string>> = { codex: "handoff_codex", claude: "handoff_claude_code" }

export type ModelFamily = "openai" | "anthropic" | "other"

// A model id is matched per path segment ("openrouter/openai/gpt-4o" → openai, gpt-4o), so that
// a transport named after a vendor ("openai-compatible/deepseek-chat") does not decide the family.
const OPENAI_SEGMENT = /^(?:openai|azure-openai|chatgpt.*|(?:ft:)?gpt.*|.*-gpt-.*|codex.*|o\d+(?:-.*)?)$/i
const ANTHROPIC_NAME = /(?:^|[^a-z])(?:anthropic|claude)(?:[^a-z]|$)/i

/**
 * The vendor family of a model id. `gpt-5`, `openai/gpt-4o`, `o3`, `o4-mini`, `codex-mini`,
 * `ft:gpt-4o:org` are openai; `claude-sonnet-4`, `anthropic/...`, `bedrock/anthropic.claude-3`
 * are anthropic. An id can name both families (a proxy route); then both are returned.
 */
export const modelFamilies = (modelId: string): ReadonlyArray<Exclude<ModelFamily, "other">> => {
  const segments = modelId.toLowerCase().split(/[/:@]/).filter((s) => s !== "")
  const joined = modelId.toLowerCase()
  const families: Array<Exclude<ModelFamily, "other">> = []
  if (segments.some((s) => OPENAI_SEGMENT.test(s)) || /(?:^|[/:.])(?:gpt|codex)[-_.\d]/.test(joined)) families.push("openai")
  if (ANTHROPIC_NAME.test(joined)) families.push("anthropic")
  return families
}

/** The model family of a model id, used to pick a different model for a hand-off. */
export const modelFamily = (modelId: string): ModelFamily => {
  const families = modelFamilies(modelId)
  return families.length === 1 ? families[0]! : "other"
}

/**
 * Harnesses to offer: never the current model's own family (openai models get Claude Code
 * only, anthropic models Codex only, others both; an id naming both families gets neither),
 * and only when its command is installed.
 */
export const handoffTargets = (modelId: string, hasCommand: (command: string) => boolean): ReadonlyArray<HandoffTarget> => {
  const families = modelFamilies(modelId)
  const candidates: Array<HandoffTarget> = []
  if (!families.includes("openai")) candidates.push("codex")
  if (!families.includes("anthropic")) candidates.push("claude")
  return candidates.filter((t) => hasCommand(HANDOFF_COMMANDS[t]))
}

export interface HandoffBrief {
  readonly target: HandoffTarget
  /** The user's goal, complete (not a summary of the last step). */
  readonly goal: string
  /** What the workspace looks like now: changed files, branch, build and test state. */
  readonly workspaceState: string
  /** What was tried and why it did not work. */
  readonly failedApproach: string
  /** The incident that paused the turn. */
  readonly incident: { readonly detail: string }
  /** What must pass before the work counts as done. */
  readonly validation: string | ReadonlyArray<string>
  /** Environment whose secret values must not reach the other harness. */
  readonly env?: Readonly<Record<string, string | undefined>>
}

const section = (title: string, body: string): string => `## ${title}\n${body.trim() === "" ? "(none given)" : body.trim()}`

/**
 * The synthetic user message that starts a hand-off. Every part of the brief passes through
 * redactSecrets, because the text is meant to be forwarded to another program.
 */
export const buildHandoffMessage = (brief: HandoffBrief): string => {
  const harness = HANDOFF_HARNESS_NAMES[brief.target]
  const clean = (text: string): string => redactSecrets(text, brief.env)
  const validation =
    typeof brief.validation === "string" ? brief.validation : brief.validation.map((v) => `- ${v}`).join("\n")
  return [
    "<system-reminder>",
    `The previous turn was paused by try-best loop detection: ${clean(brief.incident.detail)}`,
    `The user has authorised ${harness} (command \`${HANDOFF_COMMANDS[brief.target]}\`) to take over the unfinished work.`,
    `Drive ${harness} as the primary executor: it investigates, implements, fixes and validates. Do not do the work yourself, do not merely ask it for advice, and do not switch to another harness.`,
    `Run it non-interactively through the \`${HANDOFF_TOOL_NAMES[brief.target]}\` tool when it is offered (it follows the built-in \`${brief.target === "codex" ? "codex" : "claude-code"}\` skill), otherwise with \`${HANDOFF_INVOCATIONS[brief.target]}\`, and pass it the full goal, the workspace state, the failed approach and every validation requirement below. Never pass credentials, tokens, keys or unrelated private data.`,
    `Supervise ${harness} until it finishes or reaches a concrete blocker; send follow-up work back to it rather than taking over. Then check its result and the workspace changes, make sure every validation requirement has been run and passes, and report the outcome to the user. Starting the harness is not the end of the task.`,
    "",
    section("Goal", clean(brief.goal)),
    "",
    section("Workspace state", clean(brief.workspaceState)),
    "",
    section("Failed approach (do not repeat it)", clean(brief.failedApproach)),
    "",
    section("Validation requirements", clean(validation)),
    "</system-reminder>"
  ].join("\n")
}

/** The message for "continue with the same model" after a pause. */
export const continueInstruction = (incident: { readonly detail: string }): string =>
  [
    `The previous turn was paused by try-best loop detection: ${incident.detail}`,
    "Drop the approach you were taking. Inspect the workspace as it is now (changed files, diffs, the latest test or build output) before doing anything else.",
    "Explain briefly why you were stuck, then try a substantially different strategy. Do not repeat the same edits or re-run the same failing commands unchanged."
  ].join("\n")
