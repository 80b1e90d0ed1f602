/**
 * The client side as loopguard uses it: the real AI SDK providers pointed at a scripted server,
 * `streamText` with SDK retries off, and a collector that records what `fullStream` yields and
 * whether its iterator threw. Lives here so tests outside this package need not import `ai`.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  jsonSchema,
  streamText,
  tool,
  type LanguageModel,
  type ModelMessage,
  type OutputInterface,
  type StreamTextResult,
  type TextStreamPart,
  type ToolSet,
} from "ai";
import type { ScriptedServer } from "./types.js";

/** "openai-compatible" = `createOpenAICompatible(...).chatModel`, "openai" = `createOpenAI(...).chat`. */
export type ScriptedProvider = "openai-compatible" | "openai";

/** An AI SDK chat model pointed at a scripted server, through the real provider package. */
export function scriptedChatModel(
  server: Pick<ScriptedServer, "baseURL" | "modelId">,
  provider: ScriptedProvider = "openai-compatible",
): LanguageModel {
  if (provider === "openai") return createOpenAI({ baseURL: server.baseURL, apiKey: "test" }).chat(server.modelId);
  return createOpenAICompatible({ name: "scripted", baseURL: server.baseURL, apiKey: "test", includeUsage: true })
    .chatModel(server.modelId);
}

/** Tools the model may call, declared by name with an open object schema and no `execute`. */
export function declaredTools(...names: string[]): ToolSet {
  const tools: ToolSet = {};
  for (const name of names) tools[name] = tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }) });
  return tools;
}

export interface StreamScriptedOptions {
  readonly provider?: ScriptedProvider;
  /** Default: one user message "hi". */
  readonly messages?: ModelMessage[];
  readonly tools?: ToolSet;
  readonly abortSignal?: AbortSignal;
}

export type ScriptedStreamResult = StreamTextResult<ToolSet, Record<string, unknown>, OutputInterface<string, string, never>>;

/** `streamText` the way loopguard calls it: `maxRetries: 0` and a silent `onError`. */
export function streamScripted(
  server: Pick<ScriptedServer, "baseURL" | "modelId">,
  opts: StreamScriptedOptions = {},
): ScriptedStreamResult {
  return streamText({
    model: scriptedChatModel(server, opts.provider),
    messages: opts.messages ?? [{ role: "user", content: "hi" }],
    maxRetries: 0,
    onError: () => {},
    ...(opts.tools !== undefined ? { tools: opts.tools } : {}),
    ...(opts.abortSignal !== undefined ? { abortSignal: opts.abortSignal } : {}),
  });
}

export interface CollectedStream {
  readonly parts: TextStreamPart<ToolSet>[];
  /** True when the iterator threw instead of ending. */
  readonly threw: boolean;
  readonly thrown: unknown;
}

/** Drains a `fullStream`, never throwing: a thrown error is returned beside the parts seen so far. */
export async function collectFullStream(
  stream: AsyncIterable<TextStreamPart<ToolSet>>,
  onPart?: (part: TextStreamPart<ToolSet>, index: number) => void,
): Promise<CollectedStream> {
  const parts: TextStreamPart<ToolSet>[] = [];
  try {
    for await (const part of stream) {
      parts.push(part);
      onPart?.(part, parts.length - 1);
    }
    return { parts, threw: false, thrown: undefined };
  } catch (thrown) {
    return { parts, threw: true, thrown };
  }
}
