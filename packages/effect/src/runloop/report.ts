/**
 * The one report every run ends with, whatever the way out: the same fields on success, abort
 * and pause, so a UI or a parent agent reads them one way. `completed` and `blockedAt` are read
 * from the stored session (core `work-summary.ts`), so they say what happened, not what was called.
 */
import { type UsageMeter } from "@loopguard/core/caps"
import { type AssistantMessage, type ExitReason, type Message } from "@loopguard/core/model"
import { blockedAtOf, buildReport, changedFiles, failedShellWrites, summarizeWork, unnamedShellWrites, type Incident, type RunReport, type SubagentSummary } from "@loopguard/core/report"
import { DEFAULT_TRY_BEST_OPTIONS, type TryBestOptions } from "@loopguard/core/try-best"
import { isContextOverflow } from "@loopguard/core/context"

export type { Incident, RunReport }

export interface ReportInput {
  readonly exit: { readonly reason: ExitReason; readonly step: number; readonly error?: { readonly tag: string; readonly message: string; readonly uiMessage?: string } } | null
  readonly shadow: boolean
  readonly stepsUsed: number
  readonly meter: UsageMeter
  readonly messages: ReadonlyArray<Message>
  readonly lastReply: AssistantMessage | null
  readonly incidents: ReadonlyArray<Incident>
  readonly retries: Readonly<Record<string, number>>
  /** Where the session is kept (the store's `location`). */
  readonly savedAt: string
  /** The directory the tools changed, when the runtime knows it (`RunInput.workspace`). */
  readonly workspace?: string
  /** Which tools edit files and which commands are checks (the try-best lists). */
  readonly toolKinds?: TryBestOptions
  readonly subagents?: ReadonlyArray<SubagentSummary>
}

/** A command as the workspace line quotes it: at most 60 characters. */
const quotedCommand = (c: string): string => `\`${c.length > 60 ? `${c.slice(0, 57)}...` : c}\``

/** The first `max` of `items`, then how many more (`noun`: what they are). */
const firstOf = (items: ReadonlyArray<string>, max: number, noun = "more"): string =>
  `${items.slice(0, max).join(", ")}${items.length > max ? ` and ${items.length - max} ${noun}` : ""}`

/** The session's place and, when known, the workspace with the files the run changed. */
export const savedAtOf = (input: ReportInput, kinds: TryBestOptions): string => {
  if (input.workspace === undefined) return input.savedAt
  const files = changedFiles(input.messages, kinds)
  const unnamed = unnamedShellWrites(input.messages, kinds)
  const named = files.length === 0 ? [] : [`changed: ${firstOf(files, 10)}`]
  // A command that writes without naming its files still changed the workspace: say which command.
  const byShell = unnamed.length === 0 ? [] : [`files written by ${firstOf(unnamed.map(quotedCommand), 3, "more commands")}`]
  const failedWrites = failedShellWrites(input.messages, kinds)
  const maybe = [...failedWrites.files.filter((f) => !files.includes(f)), ...failedWrites.commands.map((c) => `files of ${quotedCommand(c)}`)]
  // A command that failed may still have written before it failed: never told as "no file changed".
  const failedOnes = maybe.length === 0 ? [] : [`maybe written by commands that failed: ${firstOf(maybe, 10)}`]
  const listed = named.length + byShell.length + failedOnes.length === 0 ? "no file changed" : [...named, ...byShell, ...failedOnes].join("; ")
  return `session: ${input.savedAt}; workspace: ${input.workspace} (${listed})`
}

/** A run ended by a request that no longer fits the context is told so, not to fix its credentials. */
const CONTEXT_FULL =
  "The conversation no longer fits the model's context window, even with old tool outputs shortened and older steps summarised where possible: start a new session from a short summary of what was done, or use a model with a larger context window (compaction.contextTokens)."

const suggestionFor = (exit: ReportInput["exit"]): string | undefined =>
  exit?.error !== undefined && exit.reason === "model_error" && isContextOverflow({ message: exit.error.message }) ? CONTEXT_FULL : undefined

/** The run's report from its exit, usage, messages and incidents. */
export const makeReport = (input: ReportInput): RunReport => {
  const reason: ExitReason = input.exit?.reason ?? "final"
  const kinds = input.toolKinds ?? DEFAULT_TRY_BEST_OPTIONS
  return buildReport({
    reason,
    stepsUsed: input.stepsUsed,
    tokens: input.meter.tokens,
    costUsd: input.meter.costUsd,
    completed: summarizeWork(input.messages, kinds),
    blockedAt: blockedAtOf(input.exit, reason, input.messages, kinds, input.incidents),
    ...(suggestionFor(input.exit) !== undefined ? { suggestedNextStep: suggestionFor(input.exit)! } : {}),
    savedAt: savedAtOf(input, kinds),
    ...(input.exit?.error ? { error: input.exit.error } : {}),
    retries: input.retries,
    incidents: input.incidents.map((i) => ({ step: i.step, detector: i.detector, action: i.action })),
    ...(input.subagents !== undefined ? { subagents: input.subagents } : {}),
    finalText: input.lastReply ? input.lastReply.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text).join("") : ""
  })
}
