/**
 * Turns a `StreamResponse` into the exact SSE frames an OpenAI Chat Completions stream would carry.
 * Pure: no I/O, so the frames can be inspected and the writer stays a dumb pump.
 */
import type { ScriptedChunk, StreamResponse, WireFinishReason } from "./types.js";

/** Fields every `chat.completion.chunk` repeats. */
export interface CompletionIdentity {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

export interface SseFrames {
  /** One frame per content event; the stall/reset counters index into this list. */
  readonly content: ReadonlyArray<string>;
  /** Finish chunk (unless finish is null), usage chunk (if scripted), then `[DONE]`. */
  readonly trailer: ReadonlyArray<string>;
}

export const DONE_FRAME = "data: [DONE]\n\n";

/** One server-sent event carrying `payload` as its data line. */
export function sseFrame(payload: string): string {
  return `data: ${payload}\n\n`;
}

/** Splits by code points into `pieces` near-equal parts; never yields an empty list. */
export function splitIntoPieces(text: string, pieces: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(Math.floor(pieces) || 1, chars.length));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const from = Math.floor((i * chars.length) / n);
    const to = Math.floor(((i + 1) * chars.length) / n);
    out.push(chars.slice(from, to).join(""));
  }
  return out;
}

/** The finish reason a script gets when it names none: `tool_calls` if any chunk is a call, else `stop`. */
export function defaultFinish(chunks: ReadonlyArray<ScriptedChunk>): WireFinishReason {
  return chunks.some((c) => "toolCall" in c) ? "tool_calls" : "stop";
}

/** A scripted stream response as the SSE frames a Chat Completions server would send. */
export function streamFrames(response: StreamResponse, who: CompletionIdentity): SseFrames {
  const reasoningField = response.reasoningField ?? "reasoning_content";
  const frame = (body: Record<string, unknown>) =>
    sseFrame(JSON.stringify({ id: who.id, object: "chat.completion.chunk", created: who.created, model: who.model, ...body }));
  const chunkOf = (delta: Record<string, unknown>, finish: WireFinishReason | null) =>
    frame({ choices: [{ index: 0, delta, finish_reason: finish }] });

  // Real servers announce the role on the first delta only; doing the same keeps clients honest.
  let roleSent = false;
  const withRole = (delta: Record<string, unknown>) => {
    if (roleSent) return delta;
    roleSent = true;
    return { role: "assistant", ...delta };
  };

  const content: string[] = [];
  let toolIndex = 0;
  for (const chunk of response.chunks) {
    if ("raw" in chunk) {
      content.push(sseFrame(chunk.raw));
    } else if ("text" in chunk) {
      content.push(chunkOf(withRole({ content: chunk.text }), null));
    } else if ("reasoning" in chunk) {
      content.push(chunkOf(withRole({ [reasoningField]: chunk.reasoning }), null));
    } else {
      const call = chunk.toolCall;
      const index = toolIndex++;
      splitIntoPieces(call.arguments, call.pieces ?? 1).forEach((piece, i) => {
        const head = { index, id: call.id, type: "function", function: { name: call.name, arguments: piece } };
        const tail = { index, function: { arguments: piece } };
        content.push(chunkOf(withRole({ tool_calls: [i === 0 ? head : tail] }), null));
      });
    }
  }

  const trailer: string[] = [];
  const finish = response.finish === undefined ? defaultFinish(response.chunks) : response.finish;
  if (finish !== null) trailer.push(chunkOf({}, finish));
  if (response.usage !== undefined) {
    const { prompt_tokens, completion_tokens } = response.usage;
    trailer.push(frame({ choices: [], usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } }))
  }
  trailer.push(DONE_FRAME);
  return { content, trailer };
}
