/**
 * One AI SDK step as the loopguard reply the cross-step judge reads: its text, reasoning and tool
 * calls in the order the model wrote them, each call carrying its own result or error (an AI SDK
 * step lists results after the calls), the finish reason and the usage. A step cut by the
 * middleware keeps the usage the middleware put on it (the streamed tokens, estimated when the
 * server sent none).
 */
import type { StepResult, ToolSet } from "ai"
import type { AssistantMessage, AssistantPart, FinishReason, ToolPart, Usage } from "@loopguard/core/model"

export type AnyStep = StepResult<ToolSet>
type Content = AnyStep["content"][number]
type ToolOutcome = Extract<Content, { type: "tool-result" } | { type: "tool-error" }>

const FINISH: Readonly<Record<string, FinishReason>> = {
  stop: "stop",
  length: "length",
  "tool-calls": "tool-calls",
  "content-filter": "content-filter",
  error: "error",
  other: "other"
}

/** Fields a shell-like tool's result object carries its printed text in, in the order they are read. */
const PRINTED = ["output", "stdout", "stderr", "result", "text", "content"]

/**
 * A tool's output as the detectors compare it: text as it is; a result object by the text it
 * printed (`{ stdout, exitCode }` compared as JSON would make every such result look alike once
 * strings are masked); anything else as JSON.
 */
const outputText = (output: unknown): string => {
  if (typeof output === "string") return output
  if (output !== null && typeof output === "object" && !Array.isArray(output)) {
    const o = output as Record<string, unknown>
    const printed = PRINTED.flatMap((k) => (typeof o[k] === "string" ? [o[k] as string] : []))
    if (printed.length > 0) return printed.join("\n")
  }
  try {
    return JSON.stringify(output) ?? String(output)
  } catch {
    return String(output)
  }
}

/** The exit status a shell-like tool returned in its output object (`exitCode` or `exit_code`). */
const exitCodeOf = (output: unknown): number | undefined => {
  if (output === null || typeof output !== "object") return undefined
  const o = output as Record<string, unknown>
  const code = o["exitCode"] ?? o["exit_code"]
  return typeof code === "number" && Number.isInteger(code) ? code : undefined
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : outputText(error))

/** A call with what came of it: completed with its output, error with the message, pending when it did not run. */
const toolPart = (call: Extract<Content, { type: "tool-call" }>, outcome: ToolOutcome | undefined): ToolPart => {
  const base = { type: "tool" as const, callId: call.toolCallId, name: call.toolName, input: call.input, ...(call.providerExecuted === true ? { providerExecuted: true } : {}) }
  if (outcome === undefined) return { ...base, state: call.invalid === true ? "error" : "pending", ...(call.invalid === true ? { error: errorText(call.error) } : {}) }
  if (outcome.type === "tool-error") return { ...base, state: "error", error: errorText(outcome.error) }
  const exitCode = exitCodeOf(outcome.output)
  return { ...base, state: "completed", output: outputText(outcome.output), ...(exitCode !== undefined ? { exitCode } : {}) }
}

/** The AI SDK's usage in loopguard's shape (fields the server did not send left out). */
export const usageOfStep = (step: AnyStep): Usage => {
  const u = step.usage
  const out: Record<string, number> = {}
  if (u.inputTokens !== undefined) out["inputTokens"] = u.inputTokens
  if (u.outputTokens !== undefined) out["outputTokens"] = u.outputTokens
  if (u.totalTokens !== undefined) out["totalTokens"] = u.totalTokens
  if (u.outputTokenDetails?.reasoningTokens !== undefined) out["reasoningTokens"] = u.outputTokenDetails.reasoningTokens
  if (u.inputTokenDetails?.cacheReadTokens !== undefined) out["cachedInputTokens"] = u.inputTokenDetails.cacheReadTokens
  return out
}

/** The step's parts in order, each tool call joined with its result or error. */
const partsOf = (step: AnyStep): Array<AssistantPart> => {
  const outcomes = new Map<string, ToolOutcome>()
  for (const c of step.content) if (c.type === "tool-result" || c.type === "tool-error") outcomes.set(c.toolCallId, c)
  const parts: Array<AssistantPart> = []
  for (const c of step.content) {
    if (c.type === "text" && c.text !== "") parts.push({ type: "text", text: c.text })
    else if (c.type === "reasoning" && c.text !== "") parts.push({ type: "reasoning", text: c.text })
    else if (c.type === "tool-call") parts.push(toolPart(c, outcomes.get(c.toolCallId)))
  }
  return parts
}

/** Step `step` of a run as a stored reply answering the user message `parentId`. */
export const replyOfStep = (source: AnyStep, step: number, parentId: string): AssistantMessage => ({
  role: "assistant",
  id: `step-${step}`,
  parentId,
  model: source.model.modelId,
  parts: partsOf(source),
  finish: FINISH[source.finishReason] ?? "other",
  usage: usageOfStep(source),
  step
})
