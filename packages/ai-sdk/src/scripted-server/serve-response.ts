/**
 * Plays one `ScriptedResponse` onto an HTTP response: error bodies, resets, SSE streams with
 * delays/stalls/resets, and the non-streaming JSON fold.
 */
import type { ServerResponse } from "node:http";
import { sleep, writeFrame } from "./cancellable.js";
import type { Flight } from "./flight.js";
import { completionBody, openAIErrorBody } from "./json-bodies.js";
import { geminiFrames, geminiJson } from "./gemini-frames.js";
import { messagesFrames, messagesJson, responsesFrames, responsesJson, type ScriptedProtocol } from "./protocol-frames.js";
import { streamFrames, type CompletionIdentity, type SseFrames } from "./sse-events.js";
import type { ErrorResponse, ScriptedResponse, StreamResponse } from "./types.js";

/** Writes one scripted response (stream, JSON completion, error or reset) to the HTTP response. */
export async function serveResponse(
  response: ScriptedResponse,
  wantsStream: boolean,
  who: CompletionIdentity,
  res: ServerResponse,
  flight: Flight,
  protocol: ScriptedProtocol = "chat",
): Promise<void> {
  switch (response.type) {
    case "reset":
      await flight.reset("abortive");
      return;
    case "error":
      serveError(response, res);
      return;
    case "stream":
      if (wantsStream) await pumpStream(response, who, res, flight, protocol);
      else await serveCompletion(response, who, res, flight, protocol);
      return;
  }
}

/** Answers with the scripted HTTP error status, headers (e.g. `retry-after`) and body. */
export function serveError(response: ErrorResponse, res: ServerResponse): void {
  const body = response.body ?? openAIErrorBody(response.status);
  const isText = typeof body === "string";
  const isBytes = body instanceof Uint8Array;
  const payload = isText || isBytes ? body : JSON.stringify(body);
  res.writeHead(response.status, {
    "content-type": isText ? "text/plain; charset=utf-8" : isBytes ? "application/octet-stream" : "application/json",
    ...response.headers,
  });
  res.end(payload);
}

/** Where a stall/reset lands: counts past the last content event mean "just before the finish". */
function positionOf(after: number | undefined, contentEvents: number): number | undefined {
  return after === undefined ? undefined : Math.max(0, Math.min(Math.floor(after), contentEvents));
}

/**
 * Minimum pause before a mid-stream reset. A client's fetch drops body bytes it has not read yet
 * when the connection breaks, so without a moment to read them "reset after 2 chunks" could look
 * like "reset after 0" to the client. Sized for a loaded 2-core machine, where a client can take
 * well over 25 ms to get to bytes that already arrived.
 */
export const MID_STREAM_RESET_SETTLE_MS = 200;

/** The frames of a reply in the protocol the endpoint speaks; `head` goes before the first content event. */
function framesFor(protocol: ScriptedProtocol, response: StreamResponse, who: CompletionIdentity): SseFrames & { readonly head: ReadonlyArray<string> } {
  if (protocol === "responses") return responsesFrames(response, who);
  if (protocol === "messages") return messagesFrames(response, who);
  if (protocol === "gemini") return geminiFrames(response, who);
  return { head: [], ...streamFrames(response, who) };
}

async function pumpStream(
  response: StreamResponse,
  who: CompletionIdentity,
  res: ServerResponse,
  flight: Flight,
  protocol: ScriptedProtocol,
): Promise<void> {
  const { head, content, trailer } = framesFor(protocol, response, who);
  const delay = response.chunkDelayMs ?? 0;
  const stallAt = positionOf(response.stallAfterChunks, content.length);
  const resetAt = positionOf(response.resetAfterChunks, content.length);
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  // Send the status line now: a stall before the first event must look like a silent 200 stream,
  // not like a server that never answered.
  res.flushHeaders();

  let sent = 0;
  const send = async (frame: string) => {
    if (sent > 0 && delay > 0) await sleep(delay, flight.signal);
    const ok = await writeFrame(res, frame, flight.signal);
    if (ok) sent++;
    return ok;
  };
  // The protocol's opening events (Responses' response.created, Messages' message_start) with the first content event.
  let opening = head.join("");

  for (let i = 0; i <= content.length; i++) {
    // Stall first, then reset: both at one position means "go silent, then drop the line".
    if (stallAt === i) await sleep(response.stallMs ?? Infinity, flight.signal);
    if (flight.signal.aborted) return;
    if (resetAt === i) {
      if (sent > 0) await sleep(Math.max(delay, MID_STREAM_RESET_SETTLE_MS), flight.signal);
      await flight.reset("truncate");
      return;
    }
    if (i === content.length) break;
    if (!(await send(opening + content[i]!))) return;
    opening = "";
    flight.record.chunksWritten++;
    flight.record.sentAt.push(performance.now());
  }
  for (const frame of trailer) {
    if (!(await send(opening + frame))) return;
    opening = "";
  }
  res.end();
}

/** Non-streaming: a stall delays the whole body, a reset replaces it; delays do not apply. */
async function serveCompletion(
  response: StreamResponse,
  who: CompletionIdentity,
  res: ServerResponse,
  flight: Flight,
  protocol: ScriptedProtocol,
): Promise<void> {
  if (response.stallAfterChunks !== undefined) await sleep(response.stallMs ?? Infinity, flight.signal);
  if (flight.signal.aborted) return;
  if (response.resetAfterChunks !== undefined) {
    await flight.reset("abortive");
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  const body = protocol === "responses" ? responsesJson(response, who) : protocol === "messages" ? messagesJson(response, who) : protocol === "gemini" ? geminiJson(response, who) : completionBody(response, who);
  res.end(JSON.stringify(body));
}
