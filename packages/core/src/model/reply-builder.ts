/**
 * Folds a step's stream parts into an AssistantMessage. Mutable on purpose: it sits on the hot
 * path (one call per delta), so it appends to the open text/reasoning part instead of copying.
 */
import type { AssistantMessage, AssistantPart, ToolPart } from "./message.js"
import type { FinishReason, NormalizedError, StreamPart, Usage } from "./stream.js"

type MutablePart =
  | { type: "text"; text: string; synthetic?: boolean; metadata?: Record<string, unknown> }
  | { type: "reasoning"; text: string }
  | { type: "tool"; part: ToolPart }

/** Folds stream parts into one assistant message (text, reasoning, tool parts, finish, usage). */
export class ReplyBuilder {
  private readonly parts: Array<MutablePart> = []
  private open: { type: "text" | "reasoning"; text: string } | null = null
  private finishReason: FinishReason | undefined
  private usageValue: Usage | undefined
  private errorValue: NormalizedError | undefined
  /** Any content part arrived (text, reasoning or tool) — after that an error is a stream-phase error. */
  started = false

  constructor(
    readonly id: string,
    readonly parentId: string,
    readonly step: number,
    readonly model?: string
  ) {}

  push(part: StreamPart): void {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta": {
        const kind = part.type === "text-delta" ? "text" : "reasoning"
        this.started = true
        if (this.open && this.open.type === kind) this.open.text += part.text
        else {
          this.open = { type: kind, text: part.text }
          this.parts.push(this.open)
        }
        return
      }
      case "tool-input-start":
        this.started = true
        return
      case "tool-call":
        this.started = true
        this.open = null
        this.parts.push({
          type: "tool",
          part: { type: "tool", callId: part.id, name: part.name, input: part.input, state: "pending" }
        })
        return
      case "finish":
        this.finishReason = part.finish
        if (part.usage) this.usageValue = part.usage
        return
      case "error":
        this.errorValue = part.error
        return
      default:
        return
    }
  }

  updateTool(callId: string, f: (p: ToolPart) => ToolPart): ToolPart | undefined {
    // Newest first: the call being run is almost always the last one (a reply of N calls is N lookups, not N²/2).
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const p = this.parts[i]!
      if (p.type === "tool" && p.part.callId === callId) {
        p.part = f(p.part)
        return p.part
      }
    }
    return undefined
  }

  /**
   * Replaces the model's text with `text` (the reply's prose once text tool calls were taken out
   * and turned into real calls); kept where the first text part was, dropped when empty.
   */
  replaceText(text: string): void {
    this.open = null
    const at = this.parts.findIndex((p) => p.type === "text" && p.synthetic !== true)
    const kept = this.parts.filter((p) => !(p.type === "text" && p.synthetic !== true))
    if (at >= 0 && text !== "") kept.splice(Math.min(at, kept.length), 0, { type: "text", text })
    this.parts.length = 0
    this.parts.push(...kept)
  }

  addSyntheticText(text: string, metadata?: Record<string, unknown>): void {
    this.open = null
    this.parts.push(metadata ? { type: "text", text, synthetic: true, metadata } : { type: "text", text, synthetic: true })
  }

  setError(error: NormalizedError): void {
    this.errorValue = error
  }

  /** The server's usage, from a finish part read after the reply was already settled (a tool's trip stopped the step). */
  noteUsage(usage: Usage): void {
    this.usageValue = usage
  }

  setFinish(finish: FinishReason): void {
    this.finishReason = finish
  }

  get finish(): FinishReason | undefined {
    return this.finishReason
  }

  get hasContent(): boolean {
    return this.parts.length > 0
  }

  build(): AssistantMessage {
    const parts: Array<AssistantPart> = this.parts.map((p) =>
      p.type === "tool" ? p.part : p.type === "reasoning" ? { type: "reasoning", text: p.text } : { ...p }
    )
    return {
      role: "assistant",
      id: this.id,
      parentId: this.parentId,
      step: this.step,
      parts,
      ...(this.model !== undefined ? { model: this.model } : {}),
      ...(this.finishReason !== undefined ? { finish: this.finishReason } : {}),
      ...(this.usageValue !== undefined ? { usage: this.usageValue } : {}),
      ...(this.errorValue !== undefined ? { error: this.errorValue } : {})
    }
  }
}
