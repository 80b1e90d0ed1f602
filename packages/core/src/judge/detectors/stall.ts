/**
 * The stall signals (no file change, compactions, cost, missing artefacts, flat spend) as a step
 * detector. It runs in shadow mode too, where it only warns; enabled, its first signal pauses the
 * turn unless an earlier detector already asked to (`pauseIfNone`).
 */
import { toolPartsOf, type AssistantMessage, type ToolPart } from "../../model/index.js"
import type { Incident } from "../../report/index.js"
import {
  commandOf,
  editPathOf,
  editRecords,
  isVerificationCommand,
  isWritingCommand,
  printedExitCode,
  resolveTryBestOptions,
  StallMonitor,
  toolRole,
  verificationMatcher,
  type StallOptionsInput,
  type TryBestOptions
} from "../../try-best/index.js"
import type { JudgeConfig } from "../judge-config.js"
import { tryBestOptionsOf } from "../try-best-options.js"
import type { PauseRequest, StepDetector, StepFacts, StepVerdict } from "./step-detector.js"

/** Stall-signal options from the config. */
export const stallOptionsOf = (config: JudgeConfig): StallOptionsInput => ({
  noFileChange: { enabled: config.stall.noFileChangeSteps !== null, steps: config.stall.noFileChangeSteps ?? 1 },
  compactions: { enabled: config.stall.maxCompactions !== null, limit: config.stall.maxCompactions ?? 1 },
  cost: {
    enabled: config.stall.costRatio !== null && config.loop.costBudgetUsd !== null,
    fraction: config.stall.costRatio ?? 1,
    ...(config.loop.costBudgetUsd !== null ? { budgetUsd: config.loop.costBudgetUsd } : {})
  },
  artefacts: { enabled: config.stall.requiredArtefacts.length > 0, required: config.stall.requiredArtefacts },
  spendFlat: { enabled: config.stall.spendFlatWindow !== null, window: config.stall.spendFlatWindow ?? 1 }
})

export class StallDetector implements StepDetector {
  private readonly monitor: StallMonitor
  private readonly toolKinds: TryBestOptions
  private readonly verification: ReturnType<typeof verificationMatcher>
  /** Signals pause the turn only when enabled and enforcing; otherwise they warn. */
  private readonly pauses: boolean

  constructor(
    private readonly config: JudgeConfig,
    shadow: boolean
  ) {
    this.monitor = new StallMonitor(stallOptionsOf(config))
    this.toolKinds = resolveTryBestOptions(tryBestOptionsOf(config))
    this.verification = verificationMatcher(this.toolKinds)
    this.pauses = config.stall.enabled && !shadow
  }

  push({ reply, step, ctx }: StepFacts): StepVerdict {
    const summary = { step, ...this.progressOf(reply), final: ctx.final, ...(ctx.compacted === true ? { compaction: true } : {}) }
    const incidents: Array<Incident> = []
    let pause: PauseRequest | undefined
    for (const s of this.monitor.consume({ ...summary, ...(ctx.costUsd !== null ? { costUsd: ctx.costUsd } : {}) })) {
      incidents.push({ step, detector: s.kind, action: this.pauses ? "pause" : "warn", detail: { ...s } })
      if (this.config.stall.enabled) pause ??= { ...s }
    }
    return { incidents, ...(pause !== undefined ? { pauseIfNone: pause } : {}) }
  }

  /** What the reply did towards progress: files changed, tokens spent, verification run and passed. */
  private progressOf(reply: AssistantMessage) {
    const parts = toolPartsOf(reply)
    const { changedFiles, wroteFiles } = fileChangesOf(parts, this.toolKinds)
    const verifications = parts.filter((p) => {
      const cmd = commandOf(p.input)
      return cmd !== undefined && isVerificationCommand(cmd, this.verification)
    })
    // A harness that prints its exit status instead of returning it still says whether the run passed.
    const verificationImproved = verifications.some((p) => p.state === "completed" && (p.exitCode ?? printedExitCode(p.output) ?? 0) === 0)
    const usage = reply.usage
    const tokens = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0)
    return { changedFiles, ...(wroteFiles ? { wroteFiles } : {}), tokens, verificationImproved, verificationRan: verifications.length > 0 }
  }
}

/**
 * The files a step's finished calls changed: edits by any harness's vocabulary (an editor that
 * records no diff still wrote) by path — a patch names its files inside (Codex's apply_patch) —
 * and whether something wrote files whose paths are unknown (a shell command that writes, an edit
 * without a path).
 */
export const fileChangesOf = (
  parts: ReadonlyArray<ToolPart>,
  kinds: TryBestOptions
): { readonly changedFiles: Array<string>; readonly wroteFiles: boolean } => {
  const done = parts.filter((p) => p.state === "completed" && (p.exitCode ?? printedExitCode(p.output) ?? 0) === 0)
  const edits = done.filter((p) => p.diff !== undefined || toolRole(p, kinds) === "edit")
  const changedFiles = edits.flatMap((p) => {
    const path = p.diff !== undefined ? p.path : (editPathOf(p) ?? editRecords(p).find((r) => r.path !== undefined)?.path)
    return path === undefined ? [] : [path]
  })
  const shellWrote = done.some((p) => {
    const command = toolRole(p, kinds) === "shell" ? commandOf(p.input) : undefined
    return command !== undefined && isWritingCommand(command)
  })
  return { changedFiles, wroteFiles: shellWrote || edits.length > changedFiles.length }
}
