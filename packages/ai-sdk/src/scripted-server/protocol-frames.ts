/**
 * The same scripted reply as an OpenAI Responses stream or an Anthropic Messages stream (and their
 * non-streamed JSON bodies), so agents that speak those protocols meet the same faults. Content
 * events are counted as in Chat Completions: one per text, reasoning or raw chunk and one per
 * argument piece of a tool call; the opening and closing events of items and blocks ride along
 * with the content event they belong to.
 */
import { defaultFinish, splitIntoPieces, sseFrame, type CompletionIdentity, type SseFrames } from "./sse-events.js";
import type { ScriptedChunk, StreamResponse, WireUsage } from "./types.js";

/** Which wire protocol a scripted endpoint speaks. */
export type ScriptedProtocol = "chat" | "responses" | "messages" | "gemini";

const named = (type: string, payload: object): string => `event: ${type}\n${sseFrame(JSON.stringify({ type, ...payload }))}`;

type Kind = "text" | "reasoning" | "call";

/** What a reply's chunks become, item by item (Responses) or block by block (Messages). */
interface Item {
  readonly kind: Kind;
  readonly id: string;
  text: string;
  readonly name?: string;
}

const usageOf = (response: StreamResponse, items: ReadonlyArray<Item>): WireUsage =>
  response.usage ?? { prompt_tokens: 1, completion_tokens: Math.max(1, Math.ceil(items.reduce((n, i) => n + i.text.length, 0) / 4)) };

/** The Responses output item for a finished item. */
const responsesItem = (item: Item): object =>
  item.kind === "text"
    ? { id: item.id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: item.text, annotations: [] }] }
    : item.kind === "reasoning"
      ? { id: item.id, type: "reasoning", summary: [{ type: "summary_text", text: item.text }] }
      : { id: item.id, type: "function_call", status: "completed", call_id: item.id.replace(/^fc_/, ""), name: item.name, arguments: item.text };

const responsesBody = (response: StreamResponse, who: CompletionIdentity, items: ReadonlyArray<Item>, status: string): object => {
  const usage = usageOf(response, items);
  return {
    id: who.id,
    object: "response",
    created_at: who.created,
    model: who.model,
    status,
    ...(status === "incomplete" ? { incomplete_details: { reason: "max_output_tokens" } } : {}),
    output: items.map(responsesItem),
    usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, total_tokens: usage.prompt_tokens + usage.completion_tokens }
  };
};

/** The chunks grouped into items: consecutive text (or reasoning) is one item, each call its own. */
const itemsOf = (chunks: ReadonlyArray<ScriptedChunk>, prefix: string): Array<Item> => {
  const items: Array<Item> = [];
  for (const chunk of chunks) {
    const last = items[items.length - 1];
    if ("text" in chunk || "reasoning" in chunk) {
      const kind: Kind = "text" in chunk ? "text" : "reasoning";
      const piece = "text" in chunk ? chunk.text : chunk.reasoning;
      if (last?.kind === kind) last.text += piece;
      else items.push({ kind, id: `${prefix}${kind === "text" ? "msg" : "rs"}_${items.length}`, text: piece });
    } else if ("toolCall" in chunk) {
      items.push({ kind: "call", id: chunk.toolCall.id, text: chunk.toolCall.arguments, name: chunk.toolCall.name });
    }
  }
  return items;
};

/** A scripted reply as OpenAI Responses SSE frames. */
export function responsesFrames(response: StreamResponse, who: CompletionIdentity): SseFrames & { readonly head: ReadonlyArray<string> } {
  let seq = 0;
  const ev = (type: string, payload: object) => named(type, { sequence_number: seq++, ...payload });
  const start = { id: who.id, object: "response", created_at: who.created, model: who.model, status: "in_progress", output: [] };
  const head = [ev("response.created", { response: start }), ev("response.in_progress", { response: start })];
  const content: Array<string> = [];
  const done: Array<Item> = [];
  let open: { item: Item; index: number } | null = null;
  const close = (): string => {
    if (open === null) return "";
    const { item, index } = open;
    open = null;
    done.push(item);
    const part = { type: "output_text", text: item.text, annotations: [] };
    const tail =
      item.kind === "text"
        ? ev("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text: item.text }) +
          ev("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part })
        : "";
    return tail + ev("response.output_item.done", { output_index: index, item: responsesItem(item) });
  };
  for (const chunk of response.chunks) {
    if ("raw" in chunk) {
      content.push(sseFrame(chunk.raw));
    } else if ("toolCall" in chunk) {
      const call = chunk.toolCall;
      let frame = close();
      const index = done.length;
      const item: Item = { kind: "call", id: `fc_${call.id}`, text: "", name: call.name };
      const added = { id: item.id, type: "function_call", status: "in_progress", call_id: call.id, name: call.name, arguments: "" };
      frame += ev("response.output_item.added", { output_index: index, item: added });
      const pieces = splitIntoPieces(call.arguments, call.pieces ?? 1);
      pieces.forEach((piece, i) => {
        item.text += piece;
        frame += ev("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: piece });
        if (i === pieces.length - 1) {
          frame += ev("response.function_call_arguments.done", { item_id: item.id, output_index: index, arguments: item.text });
          done.push(item);
          frame += ev("response.output_item.done", { output_index: index, item: responsesItem(item) });
        }
        content.push(frame);
        frame = "";
      });
    } else {
      const kind: Kind = "text" in chunk ? "text" : "reasoning";
      const piece = "text" in chunk ? chunk.text : chunk.reasoning;
      let frame = "";
      if (open?.item.kind !== kind) {
        frame += close();
        const index = done.length;
        const item: Item = { kind, id: `${kind === "text" ? "msg" : "rs"}_${index}`, text: "" };
        open = { item, index };
        if (kind === "text") {
          frame += ev("response.output_item.added", { output_index: index, item: { id: item.id, type: "message", status: "in_progress", role: "assistant", content: [] } });
          frame += ev("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
        } else {
          frame += ev("response.output_item.added", { output_index: index, item: { id: item.id, type: "reasoning", summary: [] } });
        }
      }
      const now: { item: Item; index: number } = open!;
      now.item.text += piece;
      frame +=
        kind === "text"
          ? ev("response.output_text.delta", { item_id: now.item.id, output_index: now.index, content_index: 0, delta: piece })
          : ev("response.reasoning_summary_text.delta", { item_id: now.item.id, output_index: now.index, summary_index: 0, delta: piece });
      content.push(frame);
    }
  }
  const finish = response.finish === undefined ? defaultFinish(response.chunks) : response.finish;
  const trailer: Array<string> = [];
  const closing = close();
  if (finish !== null) {
    const status = finish === "length" ? "incomplete" : "completed";
    trailer.push(closing + ev(`response.${status}`, { response: responsesBody(response, who, done, status) }));
  } else if (closing !== "") trailer.push(closing);
  return { head, content, trailer };
}

/** A scripted reply as one Responses JSON body. */
export function responsesJson(response: StreamResponse, who: CompletionIdentity): object {
  const finish = response.finish === undefined ? defaultFinish(response.chunks) : response.finish;
  return responsesBody(response, who, itemsOf(response.chunks, ""), finish === "length" ? "incomplete" : "completed");
}

const STOP_REASONS: Readonly<Record<string, string>> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", content_filter: "refusal" };

const messagesBlock = (item: Item): object =>
  item.kind === "text"
    ? { type: "text", text: item.text }
    : item.kind === "reasoning"
      ? { type: "thinking", thinking: item.text, signature: "scripted" }
      : { type: "tool_use", id: item.id, name: item.name, input: parseOr(item.text) };

const parseOr = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
};

/** A scripted reply as Anthropic Messages SSE frames. */
export function messagesFrames(response: StreamResponse, who: CompletionIdentity): SseFrames & { readonly head: ReadonlyArray<string> } {
  const start = { id: who.id, type: "message", role: "assistant", model: who.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: response.usage?.prompt_tokens ?? 1, output_tokens: 1 } };
  const head = [named("message_start", { message: start })];
  const content: Array<string> = [];
  let index = -1;
  let open: Kind | null = null;
  let written = 0;
  const close = (): string => {
    if (open === null) return "";
    open = null;
    return named("content_block_stop", { index });
  };
  for (const chunk of response.chunks) {
    if ("raw" in chunk) {
      content.push(sseFrame(chunk.raw));
    } else if ("toolCall" in chunk) {
      const call = chunk.toolCall;
      let frame = close() + named("content_block_start", { index: ++index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
      const pieces = splitIntoPieces(call.arguments, call.pieces ?? 1);
      pieces.forEach((piece, i) => {
        frame += named("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
        if (i === pieces.length - 1) frame += named("content_block_stop", { index });
        content.push(frame);
        frame = "";
      });
      written += call.arguments.length;
    } else {
      const kind: Kind = "text" in chunk ? "text" : "reasoning";
      const piece = "text" in chunk ? chunk.text : chunk.reasoning;
      let frame = "";
      if (open !== kind) {
        frame += close();
        open = kind;
        frame += named("content_block_start", { index: ++index, content_block: kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" } });
      }
      frame += named("content_block_delta", { index, delta: kind === "text" ? { type: "text_delta", text: piece } : { type: "thinking_delta", thinking: piece } });
      content.push(frame);
      written += piece.length;
    }
  }
  const finish = response.finish === undefined ? defaultFinish(response.chunks) : response.finish;
  const trailer: Array<string> = [];
  const closing = close();
  if (finish !== null) {
    const output = response.usage?.completion_tokens ?? Math.max(1, Math.ceil(written / 4));
    trailer.push(closing + named("message_delta", { delta: { stop_reason: STOP_REASONS[finish], stop_sequence: null }, usage: { output_tokens: output } }) + named("message_stop", {}));
  } else if (closing !== "") trailer.push(closing);
  return { head, content, trailer };
}

/** A scripted reply as one Messages JSON body. */
export function messagesJson(response: StreamResponse, who: CompletionIdentity): object {
  const items = itemsOf(response.chunks, "");
  const finish = response.finish === undefined ? defaultFinish(response.chunks) : response.finish;
  const usage = usageOf(response, items);
  return {
    id: who.id,
    type: "message",
    role: "assistant",
    model: who.model,
    content: items.map(messagesBlock),
    stop_reason: finish === null ? null : STOP_REASONS[finish],
    stop_sequence: null,
    usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens }
  };
}
