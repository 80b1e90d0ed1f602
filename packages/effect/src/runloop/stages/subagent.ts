/**
 * Sub-agents (docs/run-loop.md): the `task` tool runs a child run on a sub-task in its own
 * session (`<parent>/task-<step>-<n>`), as role `subagent`, one level deeper, with a slice of what the
 * parent has left (`budgetSlice`). Its tokens and cost join the parent's meter and its summary the
 * parent's report; the parent's model gets the child's answer (or where it got blocked) as the result.
 */
import { runModeOf } from "../run-mode.js"
import { budgetSlice } from "@loopguard/core/caps"
import { type SubagentSummary } from "@loopguard/core/report"
import { stringField } from "@loopguard/core/try-best"
import { Effect } from "effect"
import type { ToolSpec } from "../../llm/LLM.js"
import type { ToolResult } from "../../tools/Tools.js"
import { judgeChildRun, type ChildPause } from "@loopguard/core/step"
import { judge } from "../interpret.js"
import type { RunContext, RunServices } from "../run-context.js"
import type { RunInput, RunResult, SpawnRun } from "../run-types.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export const TASK_TOOL: ToolSpec = {
  name: "task",
  description:
    "Hand a self-contained sub-task to a sub-agent. It works with the same tools under its own, smaller step and token budget, " +
    "and returns its result as text. Put everything it needs to know in `prompt`.",
  inputSchema: {
    type: "object",
    properties: {
      description: { type: "string", description: "a short name for the sub-task" },
      prompt: { type: "string", description: "the complete instructions for the sub-agent" }
    },
    required: ["prompt"]
  }
}

/** The task tool is offered while sub-agents are on, below the depth cap, and never when replaying. */
export const offersTask = (s: RunServices, input: RunInput): boolean =>
  s.config.subagents.enabled && runModeOf(input).startsRuns && (input.depth ?? 0) < s.config.subagents.maxDepth

const failed = (error: string): ToolResult => ({ state: "error", output: "", error })

/** The parent model's view of a finished child. */
export const childResultText = (r: RunResult): string => {
  const head = `Sub-agent ${r.report.status} (${r.report.reason}) after ${r.report.stepsUsed} step(s), ${r.report.tokens.total} tokens.`
  const answer = r.report.finalText?.trim() ?? ""
  const blocked = r.report.blockedAt !== null ? `\nBlocked at: ${r.report.blockedAt}` : ""
  return `${head}${answer !== "" ? `\n${answer}` : ""}${blocked}`
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

/** The child's pause as the parent files it: the child's own incident, saying it was a sub-agent's. */
export const childPauseOf = (child: RunResult, sessionId: string): ChildPause => {
  const paused = [...child.incidents].reverse().find((i) => i.action === "pause")
  const own = isRecord(paused?.detail) ? paused.detail : {}
  const what = typeof own["detail"] === "string" ? own["detail"] : (child.report.blockedAt ?? "the sub-agent paused")
  return { detector: paused?.detector ?? "subagent", detail: { ...own, detail: `a sub-agent (${sessionId}) paused: ${what}`, subagent: sessionId } }
}

export const runTask = (s: RunServices, ctx: RunContext, spawn: SpawnRun, input: unknown): Effect.Effect<ToolResult, SessionStoreError> =>
  Effect.gen(function* () {
    const prompt = stringField(input, "prompt")?.trim() ?? ""
    if (prompt === "") return failed("task: `prompt` is required (the complete instructions for the sub-agent)")
    const slice = budgetSlice(ctx.policy, ctx.state.meter, s.config.subagents)
    if (slice === null) return failed("task: no budget left for a sub-agent; finish the work yourself")
    // Unique in the session across runs (steps are numbered over the whole session): a later run's
    // sub-agent never continues an earlier one's history.
    const { step } = ctx.state
    const sessionId = `${ctx.input.sessionId}/task-${step}-${ctx.state.subagents.filter((c) => c.step === step).length + 1}`
    const depth = (ctx.input.depth ?? 0) + 1
    const child = yield* spawn({
      sessionId,
      prompt,
      role: "subagent",
      depth,
      budget: slice,
      ...(ctx.input.system !== undefined ? { system: ctx.input.system } : {}),
      ...(ctx.input.signal !== undefined ? { signal: ctx.input.signal } : {}),
      ...(ctx.input.workspace !== undefined ? { workspace: ctx.input.workspace } : {})
    })
    const r = child.report
    const summary: SubagentSummary = { sessionId, step, depth, status: r.status, reason: r.reason, stepsUsed: r.stepsUsed, tokens: r.tokens, costUsd: r.costUsd }
    const pause = r.status === "paused" ? childPauseOf(child, sessionId) : null
    yield* judge(s, ctx, (state) => judgeChildRun(state, { summary, budget: slice, pause }))
    const text = childResultText(child)
    // The model sees an error result as its error text only, so it carries the whole account.
    return r.status === "completed" ? { state: "completed", output: text } : { state: "error", output: "", error: text }
  })
