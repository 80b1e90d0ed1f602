import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { chunksOf, repeatLoop, textStream, toolCallStream } from "./builders.js";
import { completionBody, openAIErrorBody } from "./json-bodies.js";

const textsOf = (chunks: ReadonlyArray<object>) => chunks.map((c) => ("text" in c ? (c.text as string) : null));

describe("chunksOf / textStream", () => {
  test("slices of exactly chunkSize code points except the last", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), fc.integer({ min: 1, max: 12 }), (text, size) => {
        const slices = chunksOf(text, size);
        expect(slices.join("")).toBe(text);
        slices.slice(0, -1).forEach((s) => expect(Array.from(s).length).toBe(size));
        if (slices.length > 0) expect(Array.from(slices.at(-1)!).length).toBeLessThanOrEqual(size);
      }),
    );
  });

  test("textStream keeps stream settings and puts reasoning first", () => {
    const response = textStream("Hello world!", { chunkSize: 5, reasoning: "ok", chunkDelayMs: 3, finish: "length" });
    expect(response.type).toBe("stream");
    expect(response.chunks[0]).toEqual({ reasoning: "ok" });
    expect(textsOf(response.chunks.slice(1))).toEqual(["Hello", " worl", "d!"]);
    expect(response.chunkDelayMs).toBe(3);
    expect(response.finish).toBe("length");
    expect("chunkSize" in response).toBe(false);
  });
});

describe("repeatLoop", () => {
  test("repeats the sentence, joining with a space when needed, and finishes with length", () => {
    const response = repeatLoop("Let me check.", 3, { chunkSize: 1000 });
    expect(textsOf(response.chunks)).toEqual(["Let me check. Let me check. Let me check."]);
    expect(response.finish).toBe("length");
    const spaced = repeatLoop("again\n", 2, { chunkSize: 1000, finish: "stop" });
    expect(textsOf(spaced.chunks)).toEqual(["again\nagain\n"]);
    expect(spaced.finish).toBe("stop");
  });
});

describe("toolCallStream", () => {
  test("encodes object arguments, keeps string arguments verbatim", () => {
    const call = toolCallStream("read_file", { path: "a.ts" }, { pieces: 2, text: "Reading." });
    expect(call.chunks[0]).toEqual({ text: "Reading." });
    expect(call.chunks[1]).toEqual({
      toolCall: { id: "call_read_file", name: "read_file", arguments: '{"path":"a.ts"}', pieces: 2 },
    });
    const broken = toolCallStream("bash", '{"command": "ls', { id: "c9" });
    expect(broken.chunks[0]).toEqual({ toolCall: { id: "c9", name: "bash", arguments: '{"command": "ls', pieces: 1 } });
  });
});

describe("completionBody", () => {
  test("folds a stream script into one chat.completion", () => {
    const body = completionBody(
      {
        type: "stream",
        chunks: [{ reasoning: "a" }, { reasoning: "b" }, { text: "x" }, { raw: "ignored" }, { text: "y" }],
        usage: { prompt_tokens: 1, completion_tokens: 2 },
      },
      { id: "i", created: 1, model: "m" },
    ) as any;
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0].message).toEqual({ role: "assistant", content: "xy", reasoning_content: "ab" });
    expect(body.choices[0].finish_reason).toBe("stop");
    expect(body.usage.total_tokens).toBe(3);
  });

  test("tool calls keep whole arguments and default the finish to tool_calls", () => {
    const body = completionBody(toolCallStream("ls", { dir: "." }, { pieces: 4 }), { id: "i", created: 1, model: "m" }) as any;
    expect(body.choices[0].message.content).toBeNull();
    expect(body.choices[0].message.tool_calls).toEqual([
      { id: "call_ls", type: "function", function: { name: "ls", arguments: '{"dir":"."}' } },
    ]);
    expect(body.choices[0].finish_reason).toBe("tool_calls");
  });
});

describe("openAIErrorBody", () => {
  test("uses OpenAI's type and code for rate limits and server errors", () => {
    expect(openAIErrorBody(429)).toEqual({
      error: { message: "scripted error 429", type: "requests", param: null, code: "rate_limit_exceeded" },
    });
    expect((openAIErrorBody(503) as any).error.type).toBe("server_error");
    expect((openAIErrorBody(500, "boom", "script_exhausted") as any).error).toMatchObject({
      message: "boom",
      type: "script_exhausted",
    });
  });
});
