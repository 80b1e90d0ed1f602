import { afterEach, describe, expect, test } from "bun:test";
import { textStream, toolCallStream } from "./builders.js";
import { collectFullStream, streamScripted } from "./client.js";
import { startScriptedServer } from "./server.js";
import type { ScriptedServer } from "./types.js";
import { estimateUsage, withUsage } from "./usage-estimate.js";

const asked = { messages: [{ role: "user", content: "x".repeat(40) }], stream_options: { include_usage: true } };

describe("estimateUsage", () => {
  test("counts the characters of the request's messages and of the streamed reply", () => {
    expect(estimateUsage(asked, textStream("y".repeat(9)))).toEqual({ prompt_tokens: 11, completion_tokens: 3 }) // "user" + 40 x: 44 characters;
    const call = toolCallStream("bash", { command: "ls" });
    expect(estimateUsage({ messages: [] }, call).completion_tokens).toBe(Math.ceil(("bash".length + '{"command":"ls"}'.length) / 4));
    expect(estimateUsage({ messages: [] }, textStream(""))).toEqual({ prompt_tokens: 0, completion_tokens: 0 });
  });
  test("a scripted usage wins; no usage unless the client asked for it", () => {
    const scripted = textStream("hi", { usage: { prompt_tokens: 1, completion_tokens: 2 } });
    expect(withUsage(scripted, asked).usage).toEqual({ prompt_tokens: 1, completion_tokens: 2 });
    expect(withUsage(textStream("hi"), { messages: [] }).usage).toBeUndefined();
    expect(withUsage(textStream("hi"), null).usage).toBeUndefined();
  });
});

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

test("the AI SDK provider sees the estimated usage in the finish part", async () => {
  const server = await startScriptedServer([textStream("Twelve chars")]);
  servers.push(server);
  const { parts } = await collectFullStream(streamScripted(server, { messages: [{ role: "user", content: "abcdefgh" }] }).fullStream);
  const finish = parts.find((p) => p.type === "finish") as { totalUsage: { inputTokens?: number; outputTokens?: number } } | undefined;
  expect(finish?.totalUsage.outputTokens).toBe(3);
  expect(finish?.totalUsage.inputTokens).toBeGreaterThanOrEqual(2);
}, 30_000);

test("omitUsage plays a server that ignores include_usage: no usage unless the script gives one", async () => {
  const server = await startScriptedServer([textStream("Twelve chars"), textStream("Twelve chars", { usage: { prompt_tokens: 1, completion_tokens: 2 } })], { omitUsage: true });
  servers.push(server);
  const totalOf = async () => {
    const { parts } = await collectFullStream(streamScripted(server, { messages: [{ role: "user", content: "abcdefgh" }] }).fullStream);
    return (parts.find((p) => p.type === "finish") as { totalUsage: { inputTokens?: number; outputTokens?: number } }).totalUsage;
  };
  expect(await totalOf()).toMatchObject({ inputTokens: undefined, outputTokens: undefined });
  expect(await totalOf()).toMatchObject({ inputTokens: 1, outputTokens: 2 });
}, 30_000);
