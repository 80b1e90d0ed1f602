/**
 * The same scripted reply as the Gemini API gives it (`models/{model}:streamGenerateContent?alt=sse`
 * and `:generateContent`), so Gemini CLI and the proxy's Gemini protocol meet the same faults.
 * Each content event is one `GenerateContentResponse` with one part: text, a thought (reasoning),
 * or a whole function call (Gemini sends a call's arguments as one object, never in pieces). Events
 * end with "\r\n\r\n", as the Gemini API's do. The finish reason and usage come in a last event.
 */
import { defaultFinish, type CompletionIdentity, type SseFrames } from "./sse-events.js";
import type { ScriptedChunk, StreamResponse, WireFinishReason } from "./types.js";

const FINISH_REASONS: Readonly<Record<WireFinishReason, string>> = { stop: "STOP", tool_calls: "STOP", length: "MAX_TOKENS", content_filter: "SAFETY" };

const geminiEvent = (payload: object): string => `data: ${JSON.stringify(payload)}\r\n\r\n`;

const argsOf = (text: string): unknown => {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
};

/** One chunk as a Gemini content part; null for a raw chunk (written as it is). */
const partOf = (chunk: ScriptedChunk): object | null => {
  if ("text" in chunk) return { text: chunk.text };
  if ("reasoning" in chunk) return { text: chunk.reasoning, thought: true };
  if ("toolCall" in chunk) return { functionCall: { name: chunk.toolCall.name, args: argsOf(chunk.toolCall.arguments) } };
  return null;
};

const usageOf = (response: StreamResponse) => {
  const written = response.chunks.reduce((n, c) => n + ("text" in c ? c.text.length : "reasoning" in c ? c.reasoning.length : "toolCall" in c ? c.toolCall.arguments.length : 0), 0);
  const prompt = response.usage?.prompt_tokens ?? 1;
  const candidates = response.usage?.completion_tokens ?? Math.max(1, Math.ceil(written / 4));
  return { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates };
};

const candidate = (parts: ReadonlyArray<object>, finish?: string) => ({ content: { parts, role: "model" }, ...(finish !== undefined ? { finishReason: finish } : {}), index: 0 });

/** A scripted reply as Gemini SSE frames (no opening events: the first event carries content). */
export function geminiFrames(response: StreamResponse, who: CompletionIdentity): SseFrames & { readonly head: ReadonlyArray<string> } {
  const identity = { modelVersion: who.model, responseId: who.id };
  const content = response.chunks.map((chunk) => {
    const part = partOf(chunk);
    return part === null ? `data: ${(chunk as { raw: string }).raw}\n\n` : geminiEvent({ candidates: [candidate([part])], ...identity });
  });
  const finish = response.finish === undefined ? defaultFinish(response.chunks) : response.finish;
  const trailer = finish === null ? [] : [geminiEvent({ candidates: [candidate([{ text: "" }], FINISH_REASONS[finish])], usageMetadata: usageOf(response), ...identity })];
  return { head: [], content, trailer };
}

/** A scripted reply as one Gemini `generateContent` JSON body. */
export function geminiJson(response: StreamResponse, who: CompletionIdentity): object {
  const finish = response.finish === undefined ? defaultFinish(response.chunks) : response.finish;
  const parts: Array<object> = [];
  for (const chunk of response.chunks) {
    const part = partOf(chunk);
    const last = parts[parts.length - 1] as { text?: string; thought?: boolean } | undefined;
    // Consecutive text (or thought) pieces are one part, as the API returns them.
    if (part !== null && "text" in part && last !== undefined && typeof last.text === "string" && last.thought === (part as { thought?: boolean }).thought) last.text += (part as { text: string }).text;
    else if (part !== null) parts.push({ ...part });
  }
  return { candidates: [candidate(parts, finish === null ? undefined : FINISH_REASONS[finish])], usageMetadata: usageOf(response), modelVersion: who.model, responseId: who.id };
}

/** A Gemini API path (`/v1beta/models/{model}:streamGenerateContent`, `:generateContent`): whether it streams; null for another path. */
export const geminiPath = (path: string): { readonly stream: boolean } | null => {
  const m = /\/models\/[^/:]+:(streamGenerateContent|generateContent)$/.exec(path);
  return m === null ? null : { stream: m[1] === "streamGenerateContent" };
};
