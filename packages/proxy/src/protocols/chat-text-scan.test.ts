/**
 * The scan for plain text deltas gives exactly what the full parse gives for every event it
 * answers, and leaves to the parse every event that carries more than one choice's text: tool
 * calls, reasoning, errors, finishes, usage, other shapes and broken JSON.
 */
import { streamFrames, textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { SseSplitter } from "../sse.js"
import { plainTextDelta } from "./chat-text-scan.js"

const who = { id: "chatcmpl-1", created: 1_700_000_000, model: "m" }

/** The data of every event of a scripted stream, as the relay cuts them. */
const eventsOf = (...responses: ReadonlyArray<ReturnType<typeof textStream>>): Array<string> =>
  responses.flatMap((r) => {
    const frames = streamFrames(r, who)
    return new SseSplitter().push(Buffer.from([...frames.content, ...frames.trailer].join(""))).map((e) => e.data)
  })

/** What the full parse reads as this event's text when it is a plain text delta of one choice, else undefined. */
const parsedText = (data: string): string | undefined => {
  let chunk: any
  try {
    chunk = JSON.parse(data)
  } catch {
    return undefined
  }
  const choices = chunk?.choices
  if (!Array.isArray(choices) || choices.length !== 1 || chunk.error !== undefined) return undefined
  const [choice] = choices
  const delta = choice?.delta ?? {}
  if (choice.finish_reason !== null || delta.tool_calls !== undefined || delta.reasoning_content !== undefined || delta.reasoning !== undefined) return undefined
  return typeof delta.content === "string" ? delta.content : undefined
}

const tricky = ['say "hi"', "back\\slash", 'a "content":"b" in text', "line\nbreak\ttab", "ünïcödé ✓ 漢字 😀", "{[braces]}", "", "\\", '"', "null"]

describe("plainTextDelta", () => {
  test("text deltas, tricky text included, read as the full parse reads them", () => {
    const events = eventsOf(...tricky.map((t) => textStream(t, { chunkSize: 3 })), textStream("plain words here", { usage: { prompt_tokens: 3, completion_tokens: 2 } }))
    let scanned = 0
    for (const data of events) {
      const quick = plainTextDelta(data)
      if (quick !== undefined) {
        scanned++
        expect(quick).toBe(parsedText(data)!)
      }
    }
    // The common events do take the scan: every text chunk but the finish, usage and [DONE] events.
    expect(scanned).toBeGreaterThan(events.length / 2)
  })

  test("tool calls, reasoning, finishes, usage and [DONE] go to the full parse", () => {
    const events = eventsOf(toolCallStream("bash", { command: 'echo "content":"x"' }, { text: "Looking.", reasoning: "think first" }), textStream("done", { reasoning: "why", usage: { prompt_tokens: 1, completion_tokens: 1 } }))
    for (const data of events) {
      const parsed = data === "[DONE]" ? undefined : JSON.parse(data)
      const plain = parsed !== undefined && parsedText(data) !== undefined && !data.includes("reasoning")
      if (!plain) expect(plainTextDelta(data)).toBeUndefined()
    }
  })

  test("shapes the scan does not vouch for go to the full parse", () => {
    const shapes = [
      '{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null},{"index":1,"delta":{"content":"b"},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta": {"content":"spaced"},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}',
      '{"choices":[{"index":0,"delta":{},"message":{"content":"elsewhere"},"finish_reason":null}]}',
      '{"content":"top","choices":[{"index":0,"delta":{},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"content":"a","content":"b"},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"extra":{"x":1},"content":"nested before"},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"content":"unterminated},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"content":"bad \\q escape"},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"content":null},"finish_reason":null}]}',
      '{"error":{"message":"overloaded"},"choices":[{"delta":{"content":"x"},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"content":"x"}}]}',
      "[DONE]",
      ""
    ]
    for (const data of shapes) expect(plainTextDelta(data)).toBeUndefined()
  })

  test("a role on the first delta, and other flat keys before the content, are fine", () => {
    const data = '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi \\"there\\""},"logprobs":null,"finish_reason":null}],"system_fingerprint":"fp"}'
    expect(plainTextDelta(data)).toBe('Hi "there"')
    expect(plainTextDelta(data)).toBe(parsedText(data)!)
  })
})
