/**
 * Usage for a scripted reply that does not script its own. A real OpenAI-compatible server sends
 * a usage chunk when the request asks for it (`stream_options.include_usage`), and the AI SDK
 * provider always asks; without one every demo report said "0 tokens". The count is an estimate
 * (about four characters a token, the usual rule of thumb for English with BPE tokenizers), made
 * from what the server really received and really streamed.
 */
import type { StreamResponse, WireUsage } from "./types.js";

export const CHARS_PER_TOKEN = 4;

const tokensIn = (chars: number): number => (chars === 0 ? 0 : Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN)));

/** Characters of every string inside a JSON value (keys excluded): what a tokenizer would see. */
const textChars = (value: unknown): number => {
  if (typeof value === "string") return value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + textChars(v), 0);
  if (value !== null && typeof value === "object") return Object.values(value).reduce((n: number, v) => n + textChars(v), 0);
  return 0;
};

/** Prompt tokens from the request's messages and tools, completion tokens from the reply's chunks. */
export function estimateUsage(body: unknown, response: StreamResponse): WireUsage {
  const request = (body ?? {}) as { messages?: unknown; tools?: unknown };
  const prompt = textChars(request.messages) + textChars(request.tools);
  const completion = response.chunks.reduce((n, c) => {
    if ("text" in c) return n + c.text.length;
    if ("reasoning" in c) return n + c.reasoning.length;
    if ("toolCall" in c) return n + c.toolCall.name.length + c.toolCall.arguments.length;
    return n;
  }, 0);
  return { prompt_tokens: tokensIn(prompt), completion_tokens: tokensIn(completion) };
}

/** Whether the client asked for a usage chunk, as OpenAI's streaming API lets it. */
export function wantsUsage(body: unknown): boolean {
  return (body as { stream_options?: { include_usage?: unknown } } | null)?.stream_options?.include_usage === true;
}

/** The scripted usage when there is one; else the estimate when the client asked for usage. */
export function withUsage(response: StreamResponse, body: unknown): StreamResponse {
  if (response.usage !== undefined || !wantsUsage(body)) return response;
  return { ...response, usage: estimateUsage(body, response) };
}
