/**
 * What the user may do after a try-best pause (docs/try-best.md): stop, continue with the same model, or
 * hand the work to another harness. A harness is offered only when it is not of the current
 * model's family and its command is installed; every refusal says which of the two it was.
 */
import {
  HANDOFF_COMMANDS,
  HANDOFF_HARNESS_NAMES,
  handoffTargets,
  modelFamilies,
  type HandoffTarget
} from "@loopguard/core/try-best"

export type PauseChoice = "stop" | "continue" | `handoff:${HandoffTarget}`

/** `tryBest.onPause`: a choice made in advance, or `ask` (prompt on a terminal). */
export type OnPausePolicy = PauseChoice | "ask"

export const HANDOFF_TARGETS: ReadonlyArray<HandoffTarget> = ["codex", "claude"]

export const ON_PAUSE_POLICIES: ReadonlyArray<OnPausePolicy> = ["stop", "continue", "handoff:codex", "handoff:claude", "ask"]

/** Parses a policy name; null for anything else (callers report it as a usage error). */
export const parseOnPause = (text: string): OnPausePolicy | null => {
  const t = text.trim().toLowerCase()
  return (ON_PAUSE_POLICIES as ReadonlyArray<string>).includes(t) ? (t as OnPausePolicy) : null
}

export const handoffTargetOf = (choice: PauseChoice): HandoffTarget | null =>
  choice.startsWith("handoff:") ? (choice.slice("handoff:".length) as HandoffTarget) : null

export interface UnavailableChoice {
  readonly choice: PauseChoice
  readonly reason: string
}

export interface PauseChoices {
  /** In display order: stop, continue, then the offered hand-offs. */
  readonly offered: ReadonlyArray<PauseChoice>
  /** Hand-offs not offered, each with the reason. */
  readonly unavailable: ReadonlyArray<UnavailableChoice>
}

const FAMILY_NAMES = { openai: "OpenAI", anthropic: "Anthropic" } as const
const TARGET_FAMILY = { codex: "openai", claude: "anthropic" } as const

/** Why a hand-off target is not offered for this model, or null when it is. */
export const handoffRefusal = (target: HandoffTarget, modelId: string, hasCommand: (command: string) => boolean): string | null => {
  if (handoffTargets(modelId, hasCommand).includes(target)) return null
  const harness = HANDOFF_HARNESS_NAMES[target]
  const family = TARGET_FAMILY[target]
  if (modelFamilies(modelId).includes(family)) {
    return `${harness} is not offered for model ${modelId}: it is of the same family (${FAMILY_NAMES[family]}) and would likely repeat the same blind spot`
  }
  return `${harness} is not offered: its command \`${HANDOFF_COMMANDS[target]}\` was not found on PATH`
}

export const pauseChoices = (modelId: string, hasCommand: (command: string) => boolean): PauseChoices => {
  const offered: Array<PauseChoice> = ["stop", "continue"]
  const unavailable: Array<UnavailableChoice> = []
  for (const target of HANDOFF_TARGETS) {
    const reason = handoffRefusal(target, modelId, hasCommand)
    if (reason === null) offered.push(`handoff:${target}`)
    else unavailable.push({ choice: `handoff:${target}`, reason })
  }
  return { offered, unavailable }
}

/** Null when `choice` may be taken, else the reason it may not. */
export const refusalOf = (choice: PauseChoice, choices: PauseChoices): string | null =>
  choices.offered.includes(choice)
    ? null
    : (choices.unavailable.find((u) => u.choice === choice)?.reason ?? `${choice} is not available`)

/** What each choice does, for the printed menu. */
export const CHOICE_DESCRIPTIONS: Readonly<Record<PauseChoice, string>> = {
  stop: "end the run here (exit status 1, the paused report stands)",
  continue: "same model, new turn: drop the approach, inspect the workspace, try a different strategy",
  "handoff:codex": `let the model drive ${HANDOFF_HARNESS_NAMES.codex} (\`codex exec\`) as the primary executor`,
  "handoff:claude": `let the model drive ${HANDOFF_HARNESS_NAMES.claude} (\`claude -p\`) as the primary executor`
}
