/**
 * The scripted OpenAI-compatible server, exercised through the real AI SDK providers
 * (`@ai-sdk/openai-compatible` chatModel and `@ai-sdk/openai` chat) and, where the wire itself is
 * the subject, through raw fetch / raw sockets.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Effect } from "effect";
import { connect } from "node:net";
import {
  collectFullStream,
  declaredTools,
  repeatLoop,
  startScriptedServer,
  streamScripted,
  textStream,
  toolCallStream,
  type Script,
  type ScriptedServer,
  type ScriptedServerOptions,
  type WireFinishReason,
} from "../packages/ai-sdk/src/scripted-server/index.js";
import { it } from "./effect-test.js";

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: Script, opts?: ScriptedServerOptions): Promise<ScriptedServer> {
  const server = await startScriptedServer(script, opts);
  servers.push(server);
  return server;
}

type AnyPart = { type: string; [key: string]: any };
const ofType = (parts: ReadonlyArray<AnyPart>, type: string) => parts.filter((p) => p.type === type);
const types = (parts: ReadonlyArray<AnyPart>) => parts.map((p) => p.type);

/** Every `code` along an error's cause chain. */
function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e: any = error, depth = 0; e != null && depth < 8; e = e.cause, depth++) {
    if (typeof e.code === "string") codes.push(e.code);
  }
  return codes;
}

async function run(server: ScriptedServer, opts: Parameters<typeof streamScripted>[1] = {}) {
  const result = await collectFullStream(streamScripted(server, opts).fullStream);
  return { ...result, parts: result.parts as AnyPart[] };
}

describe("streaming through @ai-sdk/openai-compatible", () => {
  test("text and reasoning_content deltas, usage, finish stop; the request is recorded", async () => {
    const server = await serve([
      textStream("Hello world!", { chunkSize: 5, reasoning: "Think first.", usage: { prompt_tokens: 11, completion_tokens: 4 } }),
    ]);
    const { parts, threw } = await run(server, { messages: [{ role: "user", content: "greet me" }] });

    expect(threw).toBe(false);
    expect(ofType(parts, "reasoning-delta").map((p) => p.text).join("")).toBe("Think first.");
    expect(ofType(parts, "text-delta").map((p) => p.text)).toEqual(["Hello", " worl", "d!"]);
    expect(types(parts).indexOf("reasoning-end")).toBeLessThan(types(parts).indexOf("text-start"));
    const finish = ofType(parts, "finish")[0]!;
    expect(finish.finishReason).toBe("stop");
    expect(finish.rawFinishReason).toBe("stop");
    expect(finish.totalUsage).toMatchObject({ inputTokens: 11, outputTokens: 4, totalTokens: 15 });

    const [request] = server.requests;
    await request!.done;
    expect(server.requests).toHaveLength(1);
    expect(request).toMatchObject({ index: 0, closedEarly: false, chunksWritten: 6, outcome: "completed" });
    expect(request!.body).toMatchObject({
      model: "scripted-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "greet me" }],
    });
    expect(request!.headers["authorization"]).toBe("Bearer test");
  });

  test("reasoning sent in the `reasoning` field arrives as reasoning deltas too", async () => {
    const server = await serve([{ ...textStream("ok", { reasoning: "because" }), reasoningField: "reasoning" }]);
    const { parts } = await run(server);
    expect(ofType(parts, "reasoning-delta").map((p) => p.text).join("")).toBe("because");
    expect(ofType(parts, "text-delta").map((p) => p.text).join("")).toBe("ok");
  });

  test("tool-call argument deltas assemble into one tool-call part", async () => {
    const args = { path: "src/index.ts", lines: [1, 40] };
    const server = await serve([toolCallStream("read_file", args, { pieces: 4, id: "call_7" })]);
    const { parts } = await run(server, { tools: declaredTools("read_file") });

    expect(ofType(parts, "tool-input-start")[0]).toMatchObject({ id: "call_7", toolName: "read_file" });
    const deltas = ofType(parts, "tool-input-delta");
    expect(deltas).toHaveLength(4);
    expect(deltas.map((p) => p.delta).join("")).toBe(JSON.stringify(args));
    expect(ofType(parts, "tool-call")[0]).toMatchObject({ toolCallId: "call_7", toolName: "read_file", input: args });
    expect(ofType(parts, "finish")[0]!.finishReason).toBe("tool-calls");
  });

  const finishes: Array<[WireFinishReason, string]> = [
    ["stop", "stop"],
    ["length", "length"],
    ["tool_calls", "tool-calls"],
    ["content_filter", "content-filter"],
  ];
  for (const [wire, sdk] of finishes) {
    test(`finish_reason ${wire} arrives as ${sdk}`, async () => {
      const server = await serve([textStream("some text", { finish: wire })]);
      const { parts } = await run(server);
      expect(ofType(parts, "finish-step")[0]!.finishReason).toBe(sdk);
      expect(ofType(parts, "finish")[0]).toMatchObject({ finishReason: sdk, rawFinishReason: wire });
      expect(ofType(parts, "error")).toHaveLength(0);
    });
  }

  test("no finish_reason at all: an InvalidResponseDataError part, then finish 'error'", async () => {
    const server = await serve([{ ...textStream("cut off"), finish: null }]);
    const { parts, threw } = await run(server);
    expect(threw).toBe(false);
    expect(ofType(parts, "text-delta").map((p) => p.text).join("")).toBe("cut off");
    const [error] = ofType(parts, "error");
    expect(error!.error.name).toBe("AI_InvalidResponseDataError");
    expect(error!.error.message).toContain("without a finish reason");
    expect(ofType(parts, "finish")[0]!.finishReason).toBe("error");
  });

  test("repeatLoop streams the same sentence over and over and finishes with length", async () => {
    const server = await serve([repeatLoop("I will check the file.", 20, { chunkSize: 7 })]);
    const { parts } = await run(server);
    const text = ofType(parts, "text-delta").map((p) => p.text).join("");
    expect(text.split("I will check the file.").length - 1).toBe(20);
    expect(ofType(parts, "finish")[0]!.finishReason).toBe("length");
  });
});

describe("errors through @ai-sdk/openai-compatible", () => {
  test("429 with retry-after: an error part with an APICallError, headers lower-cased", async () => {
    const server = await serve([{ type: "error", status: 429, headers: { "Retry-After": "3" } }]);
    const { parts, threw } = await run(server);
    expect(threw).toBe(false);
    expect(types(parts)).toEqual(["start", "error"]);
    const error = parts[1]!.error;
    expect(error.constructor.name).toBe("APICallError");
    expect(error.statusCode).toBe(429);
    expect(error.isRetryable).toBe(true);
    expect(error.responseHeaders["retry-after"]).toBe("3");
    expect(JSON.parse(error.responseBody).error.code).toBe("rate_limit_exceeded");
  });

  test("500: an error part with statusCode 500; a custom text body and header pass through", async () => {
    const server = await serve([{ type: "error", status: 500, headers: { "X-Trace": "t1" }, body: "upstream exploded" }]);
    const { parts } = await run(server);
    const [error] = ofType(parts, "error");
    expect(error!.error.statusCode).toBe(500);
    expect(error!.error.isRetryable).toBe(true);
    expect(error!.error.responseHeaders["x-trace"]).toBe("t1");
    expect(error!.error.responseBody).toBe("upstream exploded");
  });

  test("reset before any byte: an error part with a network APICallError (no status)", async () => {
    const server = await serve([{ type: "reset" }]);
    const { parts, threw } = await run(server);
    expect(threw).toBe(false);
    expect(types(parts)).toEqual(["start", "error"]);
    const error = parts[1]!.error;
    expect(error.constructor.name).toBe("APICallError");
    expect(error.statusCode).toBeUndefined();
    expect(error.isRetryable).toBe(true);
    expect(error.message).toStartWith("Cannot connect to API");
    expect(causeCodes(error.cause)).toContain("ECONNRESET");
    await server.requests[0]!.done;
    expect(server.requests[0]).toMatchObject({ outcome: "reset", closedEarly: false, chunksWritten: 0 });
  });

  test("reset mid-stream: earlier deltas arrive, then the iterator throws an APICallError with status 200", async () => {
    const server = await serve([{ ...textStream("abcdefghijkl", { chunkSize: 3 }), resetAfterChunks: 2 }]);
    const { parts, threw, thrown } = await run(server);
    expect(ofType(parts, "text-delta").map((p) => p.text)).toEqual(["abc", "def"]);
    expect(ofType(parts, "finish")).toHaveLength(0);
    expect(threw).toBe(true);
    const error = thrown as any;
    expect(error.constructor.name).toBe("APICallError");
    expect(error.statusCode).toBe(200);
    expect(error.isRetryable).toBe(true);
    expect(error.responseHeaders["content-type"]).toContain("text/event-stream");
    // Bun: TypeError code ECONNRESET; Node (undici): TypeError "terminated" ← SocketError UND_ERR_SOCKET.
    expect(causeCodes(error.cause).some((c) => c === "ECONNRESET" || c === "UND_ERR_SOCKET")).toBe(true);
    expect(server.requests[0]).toMatchObject({ outcome: "reset", closedEarly: false, chunksWritten: 2 });
  });

  test("a list script answers 500 script_exhausted once every entry was served", async () => {
    const server = await serve([textStream("only once")]);
    expect((await run(server)).threw).toBe(false);
    const { parts } = await run(server);
    const [error] = ofType(parts, "error");
    expect(error!.error.statusCode).toBe(500);
    expect(JSON.parse(error!.error.responseBody).error.type).toBe("script_exhausted");
    expect(server.requests.map((r) => r.index)).toEqual([0, 1]);
  });

  test("whenExhausted repeat-last serves the last entry again", async () => {
    const server = await serve([textStream("first"), textStream("again")], { whenExhausted: "repeat-last" });
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) texts.push(ofType((await run(server)).parts, "text-delta").map((p) => p.text).join(""));
    expect(texts).toEqual(["first", "again", "again"]);
  });

  it.live("many requests over one keep-alive connection leave no listener build-up", () => Effect.gen(function* () {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    yield* Effect.acquireRelease(Effect.sync(() => process.on("warning", onWarning)), () => Effect.sync(() => process.off("warning", onWarning)));
    const server = yield* Effect.promise(() => serve([textStream("again")], { whenExhausted: "repeat-last" }));
    for (let i = 0; i < 15; i++) expect((yield* Effect.promise(() => run(server))).threw).toBe(false);
    yield* Effect.sleep(10);
    expect(server.requests.every((r) => r.outcome === "completed")).toBe(true);
    expect(warnings.filter((name) => name === "MaxListenersExceededWarning")).toEqual([]);
  }));

  test("a function script sees the body and index; when it throws the client gets a 500", async () => {
    const server = await serve(async (body, index) => {
      if (index === 1) throw new Error("no plan for call 1");
      return textStream(`#${index}: ${body.messages.at(-1).content}`);
    });
    const first = await run(server, { messages: [{ role: "user", content: "ping" }] });
    expect(ofType(first.parts, "text-delta").map((p) => p.text).join("")).toBe("#0: ping");
    const second = await run(server);
    const [error] = ofType(second.parts, "error");
    expect(error!.error.statusCode).toBe(500);
    expect(JSON.parse(error!.error.responseBody).error.message).toContain("no plan for call 1");
  });
});

describe("stalls, aborts and closing", () => {
  test("a finite stall is a silent gap, then the stream completes", async () => {
    const server = await serve([{ ...textStream("aabbcc", { chunkSize: 2 }), stallAfterChunks: 1, stallMs: 300 }]);
    const arrivals: number[] = [];
    const result = await collectFullStream(streamScripted(server).fullStream, (part) => {
      if (part.type === "text-delta") arrivals.push(performance.now());
    });
    expect(arrivals).toHaveLength(3);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(250);
    expect((result.parts as AnyPart[]).at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
  });

  test("client abort mid-stream: an abort part, and the server records closedEarly", async () => {
    const total = 100;
    const server = await serve([textStream("x".repeat(total * 4), { chunkSize: 4, chunkDelayMs: 10 })]);
    const controller = new AbortController();
    const result = await collectFullStream(streamScripted(server, { abortSignal: controller.signal }).fullStream, (part) => {
      if (part.type === "text-delta") controller.abort();
    });
    const parts = result.parts as AnyPart[];
    expect(result.threw).toBe(false);
    expect(parts.at(-1)!.type).toBe("abort");
    expect(ofType(parts, "finish")).toHaveLength(0);
    const [request] = server.requests;
    await request!.done;
    expect(request!.closedEarly).toBe(true);
    expect(request!.outcome).toBe("client-closed");
    expect(request!.chunksWritten).toBeLessThan(total);
  });

  test("an endless stall ends when the client aborts", async () => {
    const server = await serve([{ ...textStream("aabbcc", { chunkSize: 2 }), stallAfterChunks: 1 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { parts } = await run(server, { abortSignal: controller.signal });
    expect(ofType(parts, "text-delta").map((p) => p.text)).toEqual(["aa"]);
    expect(parts.at(-1)!.type).toBe("abort");
    await server.requests[0]!.done;
    expect(server.requests[0]).toMatchObject({ closedEarly: true, chunksWritten: 1, outcome: "client-closed" });
  });

  test("an endless stall ends when the server closes: the iterator throws a status-200 APICallError", async () => {
    const server = await serve([{ ...textStream("aabbcc", { chunkSize: 2 }), stallAfterChunks: 1 }]);
    setTimeout(() => void server.close(), 100);
    const { parts, threw, thrown } = await run(server);
    expect(ofType(parts, "text-delta").map((p) => p.text)).toEqual(["aa"]);
    expect(threw).toBe(true);
    expect((thrown as any).statusCode).toBe(200);
    expect(server.requests[0]).toMatchObject({ closedEarly: false, outcome: "server-closed" });
  });

  it.live("close() clears the server's own timers (chunk delay and finite stall)", () => Effect.gen(function* () {
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    const pending = new Set<unknown>();
    const marked = new Set([9_001, 9_002]);
    // The timer functions are wrapped for this test only: the real ones are back when its scope closes.
    const wrapTimers = () => {
      globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
        const handle = realSet(
          (...a: unknown[]) => {
            pending.delete(handle);
            fn(...a);
          },
          ms,
          ...rest,
        );
        if (ms !== undefined && marked.has(ms)) pending.add(handle);
        return handle;
      }) as typeof setTimeout;
      globalThis.clearTimeout = ((handle: any) => {
        pending.delete(handle);
        realClear(handle);
      }) as typeof clearTimeout;
    };
    const restoreTimers = () => {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    };
    yield* Effect.acquireRelease(Effect.sync(wrapTimers), () => Effect.sync(restoreTimers));
    const server = yield* Effect.promise(() =>
      serve([
        textStream("abcdef", { chunkSize: 2, chunkDelayMs: 9_001 }),
        { ...textStream("abcdef", { chunkSize: 2 }), stallAfterChunks: 1, stallMs: 9_002 },
      ]),
    );
    const bodies = [0, 1].map(() =>
      fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: JSON.stringify({ stream: true }) }).then((r) =>
        r.text().catch(() => "broken"),
      ),
    );
    while (server.requests.length < 2 || server.requests.some((r) => r.chunksWritten < 1)) yield* Effect.promise(() => Bun.sleep(5));
    yield* Effect.promise(() => Bun.sleep(20));
    expect(pending.size).toBe(2);
    yield* Effect.promise(() => server.close());
    yield* Effect.promise(() => Promise.all(server.requests.map((r) => r.done)));
    expect(pending.size).toBe(0);
    expect(server.requests.map((r) => r.outcome)).toEqual(["server-closed", "server-closed"]);
    yield* Effect.promise(() => Promise.all(bodies));
  }));

  test("writes respect back-pressure: a client that never reads stops the pump", async () => {
    const total = 5000;
    const big = "y".repeat(4096);
    const server = await serve([{ type: "stream", chunks: Array.from({ length: total }, () => ({ text: big })) }]);
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
    socket.pause();
    const body = JSON.stringify({ stream: true, messages: [] });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    while (server.requests.length === 0 || server.requests[0]!.chunksWritten === 0) await Bun.sleep(5);
    await Bun.sleep(200);
    const stalledAt = server.requests[0]!.chunksWritten;
    await Bun.sleep(200);
    expect(server.requests[0]!.chunksWritten).toBe(stalledAt);
    expect(stalledAt).toBeLessThan(total);
    socket.destroy();
    await server.requests[0]!.done;
    expect(server.requests[0]).toMatchObject({ closedEarly: true, outcome: "client-closed" });
  });
});

describe("through @ai-sdk/openai (createOpenAI().chat)", () => {
  test("text, tool call, usage and finish arrive the same way", async () => {
    const server = await serve([
      textStream("plain answer", { chunkSize: 4, usage: { prompt_tokens: 3, completion_tokens: 2 } }),
      toolCallStream("bash", { command: "ls" }, { pieces: 2 }),
    ]);
    const first = await run(server, { provider: "openai" });
    expect(ofType(first.parts, "text-delta").map((p) => p.text).join("")).toBe("plain answer");
    expect(ofType(first.parts, "finish")[0]).toMatchObject({ finishReason: "stop", totalUsage: { inputTokens: 3, outputTokens: 2 } });

    const second = await run(server, { provider: "openai", tools: declaredTools("bash") });
    expect(ofType(second.parts, "tool-call")[0]).toMatchObject({ toolName: "bash", input: { command: "ls" } });
    expect(ofType(second.parts, "finish")[0]!.finishReason).toBe("tool-calls");
    expect(server.requests[1]!.body.tools[0].function.name).toBe("bash");
  });
});

describe("plain HTTP", () => {
  test("stream: false gets one chat.completion JSON", async () => {
    const server = await serve([toolCallStream("ls", { dir: "." }, { text: "Listing.", usage: { prompt_tokens: 1, completion_tokens: 1 } })]);
    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", body: JSON.stringify({ stream: false }) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0].message.content).toBe("Listing.");
    expect(body.choices[0].message.tool_calls[0].function).toEqual({ name: "ls", arguments: '{"dir":"."}' });
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.usage.total_tokens).toBe(2);
  });

  test("the raw stream is data: lines ending with [DONE]", async () => {
    const server = await serve([textStream("ab", { chunkSize: 1 })]);
    const response = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: JSON.stringify({ stream: true }) });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = (await response.text()).split("\n\n").filter((e) => e.length > 0);
    expect(events.every((e) => e.startsWith("data: "))).toBe(true);
    expect(events.at(-1)).toBe("data: [DONE]");
    expect(events).toHaveLength(4);
  });

  test("GET /v1/models lists the one model; unknown routes and bad JSON get OpenAI-style errors", async () => {
    const server = await serve([], { modelId: "demo-model" });
    const models = (await (await fetch(`${server.baseURL}/models`)).json()) as any;
    expect(models.data.map((m: any) => m.id)).toEqual(["demo-model"]);
    const missing = await fetch(`${server.url}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.message).toContain("/v1/embeddings");
    const bad = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: "{nope" });
    expect(bad.status).toBe(400);
    expect(server.requests[0]!.body).toBe("{nope");
  });
});
