/**
 * The one report every run ends with, whatever the way out: the same fields on success, abort
 * and pause, so a UI or a parent agent reads them one way.
 */
import { type UsageMeter } from "@loopguard/core/caps"
import { toolPartsOf, type AssistantMessage, type ExitReason, type Message } from "@loopguard/core/model"
import { buildReport, type Incident, type RunReport } from "@loopguard/core/report"

export type { Incident, RunReport }

export interface ReportInput {
  readonly exit: { readonly reason: ExitReason; readonly step: number; readonly error?: { readonly tag: string; readonly message: string } } | null
  readonly shadow: boolean
  readonly stepsUsed: number
  readonly meter: UsageMeter
  readonly messages: ReadonlyArray<Message>
  readonly lastReply: AssistantMessage | null
  readonly incidents: ReadonlyArray<Incident>
  readonly retries: Readonly<Record<string, number>>
  /** Where the session is kept (the store's `location`). */
  readonly savedAt: string
}

/** Successful tool calls of the run, newest last, as "name: first line of input". */
const completedWork = (messages: ReadonlyArray<Message>): Array<string> => {
  const out: Array<string> = []
  for (const m of messages) {
    if (m.role !== "assistant" || m.excluded !== undefined) continue
    for (const p of toolPartsOf(m)) {
      if (p.state !== "completed" || (p.exitCode !== undefined && p.exitCode !== 0)) continue
      const arg = JSON.stringify(p.input ?? {})
      out.push(`${p.name} ${arg.length > 80 ? arg.slice(0, 77) + "..." : arg}`)
    }
  }
  return out.slice(-20)
}

/** The run's report from its exit, usage, messages and incidents. */
export const makeReport = (input: ReportInput): RunReport => {
  const reason: ExitReason = input.exit?.reason ?? "final"
  const lastIncident = input.incidents[input.incidents.length - 1]
  const blockedAt =
    reason === "final"
      ? null
      : input.exit?.error?.message ??
        (lastIncident ? `step ${lastIncident.step}: ${lastIncident.detector} (${lastIncident.action})` : `step ${input.exit?.step ?? 0}`)
  return buildReport({
    reason,
    stepsUsed: input.stepsUsed,
    tokens: input.meter.tokens,
    costUsd: input.meter.costUsd,
    completed: completedWork(input.messages),
    blockedAt,
    savedAt: input.savedAt,
    ...(input.exit?.error ? { error: input.exit.error } : {}),
    retries: input.retries,
    incidents: input.incidents.map((i) => ({ step: i.step, detector: i.detector, action: i.action })),
    finalText: input.lastReply ? input.lastReply.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text).join("") : ""
  })
}
