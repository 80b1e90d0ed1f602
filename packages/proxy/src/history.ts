/**
 * A conversation as loopguard `Message`s, built from any protocol's wire history: user turns,
 * assistant steps (reasoning, text, tool calls) and the tool results that answer those calls,
 * folded back into the calls' parts as the RunLoop stores them. Ids name the wire position
 * (`m<index>`), so the same history gives the same messages on every request and every replica.
 */
import type { AssistantMessage, AssistantPart, Message, ToolPart } from "@loopguard/core/model"
import { readUnrecordedResult } from "@loopguard/core/trace"

export interface WireCall {
  readonly id: string
  readonly name: string
  /** The argument text as sent (JSON for function tools); parsed when it is JSON. */
  readonly input: unknown
}

export interface WireStep {
  readonly text?: string
  readonly reasoning?: string
  readonly calls?: ReadonlyArray<WireCall>
}

/** Argument text parsed as JSON, or kept as the text it was (a parser of model output never throws). */
export const inputOf = (args: unknown): unknown => {
  if (typeof args !== "string") return args === undefined || args === null ? {} : nestedWithin(args, MAX_ARGUMENT_DEPTH) ? args : TOO_DEEP
  try {
    const parsed: unknown = JSON.parse(args)
    // Arguments nested deeper than any tool takes are kept as their text: the judge's JSON of a
    // step (and its signature) recurse, and thousands of levels would overflow the stack.
    return nestedWithin(parsed, MAX_ARGUMENT_DEPTH) ? parsed : args
  } catch {
    return args
  }
}

/** Arguments nested deeper than this are read as text (their own, or this one for an object). */
export const MAX_ARGUMENT_DEPTH = 200
const TOO_DEEP = `[arguments nested past ${MAX_ARGUMENT_DEPTH} levels]`

/** Whether `value` nests no deeper than `max` arrays and objects (walked without recursion). */
export const nestedWithin = (value: unknown, max: number): boolean => {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (top.value === null || typeof top.value !== "object") continue
    if (top.depth >= max) return false
    for (const child of Object.values(top.value)) stack.push({ value: child, depth: top.depth + 1 })
  }
  return true
}

type MutableAssistant = { -readonly [K in keyof AssistantMessage]: AssistantMessage[K] } & { parts: Array<AssistantPart> }

/** Collects a conversation in wire order. */
export class HistoryBuilder {
  readonly messages: Array<Message> = []
  private parentId = "root"
  private step = 0
  private readonly calls = new Map<string, { readonly message: MutableAssistant; readonly index: number }>()
  private open: MutableAssistant | null = null

  /** A user turn (real or tool-result-only turns are told apart by the caller). */
  user(at: number, text: string): void {
    this.open = null
    const id = `m${at}`
    this.parentId = id
    this.messages.push({ role: "user", id, text })
  }

  /**
   * An assistant step. `join` adds to the step still open (Responses sends reasoning, text and
   * each call as items of their own; they are one step until a tool result or user turn).
   */
  assistant(at: number, step: WireStep, join = false): void {
    const target = join && this.open !== null ? this.open : this.newStep(at)
    if (step.reasoning !== undefined && step.reasoning !== "") target.parts.push({ type: "reasoning", text: step.reasoning })
    if (step.text !== undefined && step.text !== "") target.parts.push({ type: "text", text: step.text })
    for (const call of step.calls ?? []) {
      this.calls.set(call.id, { message: target, index: target.parts.length })
      target.parts.push({ type: "tool", callId: call.id, name: call.name, input: call.input, state: "pending" })
      target.finish = "tool-calls"
    }
  }

  /** A tool result: the call's part becomes completed (or error) with this output. */
  toolResult(callId: string, output: string, isError = false): void {
    this.open = null
    const found = this.calls.get(callId)
    if (found === undefined) return
    const part = found.message.parts[found.index] as ToolPart
    if (isError) {
      found.message.parts[found.index] = { ...part, state: "error", output, error: output.slice(0, 500) }
      return
    }
    // No error flag (Chat and Responses tool messages carry none): read as the audit reads a trace's results.
    const read = readUnrecordedResult(output)
    found.message.parts[found.index] = { ...part, state: read.failed ? "error" : "completed", output, ...(read.exitCode !== undefined ? { exitCode: read.exitCode } : {}), ...(read.error !== undefined ? { error: read.error } : {}) }
  }

  private newStep(at: number): MutableAssistant {
    const message: MutableAssistant = { role: "assistant", id: `m${at}`, parentId: this.parentId, parts: [], finish: "stop", step: this.step++ }
    this.messages.push(message)
    this.open = message
    return message
  }
}

/** Text of a content value that is a string or a list of parts with `text` (image parts and the like are left out). */
export const textOfContent = (content: unknown, types: ReadonlyArray<string> = ["text", "input_text", "output_text"]): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  let out = ""
  for (const part of content) {
    if (part !== null && typeof part === "object" && types.includes((part as { type?: string }).type ?? "") && typeof (part as { text?: unknown }).text === "string") {
      out += (part as { text: string }).text
    }
  }
  return out
}
