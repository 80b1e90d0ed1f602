/**
 * Shorthands for the scripts tests and the demo write most: plain text, a degenerate repetition
 * loop, a tool call.
 */
import type { ScriptedChunk, StreamResponse } from "./types.js";

/** Every `StreamResponse` knob except the chunks themselves. */
export type StreamSettings = Omit<StreamResponse, "type" | "chunks">;

export interface TextStreamOptions extends StreamSettings {
  /** Characters (code points) per text delta. */
  readonly chunkSize?: number;
  /** Reasoning streamed before the text, in deltas of the same size. */
  readonly reasoning?: string;
}

export const DEFAULT_TEXT_CHUNK_SIZE = 8;

/** Consecutive slices of `size` code points; the last may be shorter. */
export function chunksOf(text: string, size: number): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size) || 1);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += step) out.push(chars.slice(i, i + step).join(""));
  return out;
}

function settingsOf<T extends StreamSettings>(opts: T, drop: ReadonlyArray<keyof T>): StreamSettings {
  const settings: Record<string, unknown> = { ...opts };
  for (const key of drop) delete settings[key as string];
  return settings as StreamSettings;
}

/** Streams `text` in deltas of `chunkSize` characters (the last may be shorter). */
export function textStream(text: string, opts: TextStreamOptions = {}): StreamResponse {
  const size = opts.chunkSize ?? DEFAULT_TEXT_CHUNK_SIZE;
  const chunks: ScriptedChunk[] = [];
  if (opts.reasoning !== undefined && opts.reasoning.length > 0) {
    for (const piece of chunksOf(opts.reasoning, size)) chunks.push({ reasoning: piece });
  }
  if (text.length > 0) for (const piece of chunksOf(text, size)) chunks.push({ text: piece });
  return { type: "stream", ...settingsOf(opts, ["chunkSize", "reasoning"]), chunks };
}

/**
 * A model stuck repeating itself: `sentence` `times` times, joined by a space unless the sentence
 * already ends in whitespace. Finishes with "length" by default, as a runaway reply hits max tokens.
 */
export function repeatLoop(sentence: string, times: number, opts: TextStreamOptions = {}): StreamResponse {
  const joiner = /\s$/.test(sentence) ? "" : " ";
  const text = Array.from({ length: Math.max(0, Math.floor(times)) }, () => sentence).join(joiner);
  return textStream(text, { finish: "length", ...opts });
}

export interface ToolCallStreamOptions extends StreamSettings {
  /** Default `call_<name>`. */
  readonly id?: string;
  /** Split the argument JSON into this many deltas (default 1). */
  readonly pieces?: number;
  /** Text streamed before the call (some models narrate first). */
  readonly text?: string;
  readonly reasoning?: string;
}

/** One tool call; `args` is JSON-encoded unless it is already a string (which may be broken JSON). */
export function toolCallStream(name: string, args: unknown, opts: ToolCallStreamOptions = {}): StreamResponse {
  const chunks: ScriptedChunk[] = [];
  if (opts.reasoning !== undefined && opts.reasoning.length > 0) chunks.push({ reasoning: opts.reasoning });
  if (opts.text !== undefined && opts.text.length > 0) chunks.push({ text: opts.text });
  const argumentsText = typeof args === "string" ? args : JSON.stringify(args ?? {});
  chunks.push({
    toolCall: { id: opts.id ?? `call_${name}`, name, arguments: argumentsText, pieces: opts.pieces ?? 1 },
  });
  return { type: "stream", ...settingsOf(opts, ["id", "pieces", "text", "reasoning"]), chunks };
}
