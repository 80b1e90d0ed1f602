import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { DONE_FRAME, splitIntoPieces, streamFrames } from "./sse-events.js";
import type { StreamResponse } from "./types.js";

const who = { id: "chatcmpl-x", created: 1700000000, model: "m" };

/** Parses `data: …\n\n` frames back into payloads, failing loudly on bad framing. */
function payloads(frames: ReadonlyArray<string>): unknown[] {
  return frames.map((frame) => {
    expect(frame.startsWith("data: ")).toBe(true);
    expect(frame.endsWith("\n\n")).toBe(true);
    const body = frame.slice(6, -2);
    return body === "[DONE]" ? "[DONE]" : JSON.parse(body);
  });
}

describe("splitIntoPieces", () => {
  test("pieces rejoin to the original and respect the requested count", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), fc.integer({ min: 1, max: 20 }), (text, n) => {
        const pieces = splitIntoPieces(text, n);
        expect(pieces.join("")).toBe(text);
        const chars = Array.from(text).length;
        expect(pieces.length).toBe(chars === 0 ? 1 : Math.min(n, chars));
        const sizes = pieces.map((p) => Array.from(p).length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  test("never splits a surrogate pair", () => {
    expect(splitIntoPieces("😀😀", 2)).toEqual(["😀", "😀"]);
  });
});

describe("streamFrames", () => {
  test("text, reasoning and role follow the OpenAI chunk shape", () => {
    const response: StreamResponse = { type: "stream", chunks: [{ reasoning: "hmm" }, { text: "Hi" }] };
    const { content, trailer } = streamFrames(response, who);
    const [first, second] = payloads(content) as any[];
    expect(first.object).toBe("chat.completion.chunk");
    expect(first.id).toBe("chatcmpl-x");
    expect(first.model).toBe("m");
    expect(first.choices[0].delta).toEqual({ role: "assistant", reasoning_content: "hmm" });
    expect(first.choices[0].finish_reason).toBeNull();
    expect(second.choices[0].delta).toEqual({ content: "Hi" });
    const tail = payloads(trailer) as any[];
    expect(tail).toHaveLength(2);
    expect(tail[0].choices[0]).toEqual({ index: 0, delta: {}, finish_reason: "stop" });
    expect(tail[1]).toBe("[DONE]");
  });

  test("reasoningField switches the delta field", () => {
    const { content } = streamFrames({ type: "stream", chunks: [{ reasoning: "r" }], reasoningField: "reasoning" }, who);
    expect((payloads(content)[0] as any).choices[0].delta).toEqual({ role: "assistant", reasoning: "r" });
  });

  test("tool call arguments are split into pieces; only the first names the call", () => {
    const args = JSON.stringify({ path: "src/a.ts", line: 12 });
    const { content, trailer } = streamFrames(
      { type: "stream", chunks: [{ toolCall: { id: "c1", name: "read", arguments: args, pieces: 3 } }] },
      who,
    );
    const calls = (payloads(content) as any[]).map((p) => p.choices[0].delta.tool_calls[0]);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toMatchObject({ index: 0, id: "c1", type: "function", function: { name: "read" } });
    expect(calls[1].id).toBeUndefined();
    expect(calls[2].function.name).toBeUndefined();
    expect(calls.map((c) => c.function.arguments).join("")).toBe(args);
    expect((payloads(trailer)[0] as any).choices[0].finish_reason).toBe("tool_calls");
  });

  test("two tool calls get consecutive indexes", () => {
    const { content } = streamFrames(
      {
        type: "stream",
        chunks: [
          { toolCall: { id: "a", name: "x", arguments: "{}" } },
          { toolCall: { id: "b", name: "y", arguments: "{}" } },
        ],
      },
      who,
    );
    const indexes = (payloads(content) as any[]).map((p) => p.choices[0].delta.tool_calls[0].index);
    expect(indexes).toEqual([0, 1]);
  });

  test("finish null leaves out the finish chunk but still ends with [DONE]", () => {
    const { trailer } = streamFrames({ type: "stream", chunks: [{ text: "x" }], finish: null }, who);
    expect(trailer).toEqual([DONE_FRAME]);
  });

  test("usage becomes a choices-less chunk before [DONE]", () => {
    const { trailer } = streamFrames(
      { type: "stream", chunks: [], finish: "length", usage: { prompt_tokens: 5, completion_tokens: 7 } },
      who,
    );
    const tail = payloads(trailer) as any[];
    expect(tail[0].choices[0].finish_reason).toBe("length");
    expect(tail[1].choices).toEqual([]);
    expect(tail[1].usage).toEqual({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 });
    expect(tail[2]).toBe("[DONE]");
  });

  test("raw chunks are written verbatim and carry no role", () => {
    const { content } = streamFrames({ type: "stream", chunks: [{ raw: "{not json" }, { text: "a" }] }, who);
    expect(content[0]).toBe("data: {not json\n\n");
    expect(JSON.parse(content[1]!.slice(6)).choices[0].delta).toEqual({ role: "assistant", content: "a" });
  });
});
