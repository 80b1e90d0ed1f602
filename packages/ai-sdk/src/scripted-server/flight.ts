/**
 * One chat-completions request in flight: its public record plus the signal that cuts it short.
 * The outcome is decided once — whoever ends the response first (us, the client, the script's
 * reset, the server closing) names it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { RecordedRequest, RequestOutcome } from "./types.js";

export interface Flight {
  readonly record: RecordedRequest;
  /** Aborted when the response is cut for any reason; pumps check it before every step. */
  readonly signal: AbortSignal;
  /** Names the outcome (first caller wins) and stops every pending wait or write. */
  cut(outcome: RequestOutcome): void;
  /**
   * Ends the connection without finishing the response. "abortive" sends a TCP RST where the runtime
   * supports it (the peer may drop bytes it has not read yet: right for "before any byte").
   * "truncate" first lets every written byte reach the kernel, then closes, so the client reads
   * the earlier events and only then hits the broken body: right for "mid-stream".
   */
  reset(mode: "abortive" | "truncate"): Promise<void>;
}

type ResettableSocket = { resetAndDestroy?: () => unknown; destroy: () => unknown };

/** Waits until the socket's userland buffer is empty (or it is gone). */
function flushed(socket: Socket): Promise<void> {
  if (socket.destroyed || socket.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const finish = () => {
      socket.off("drain", finish);
      socket.off("close", finish);
      resolve();
    };
    socket.once("drain", finish);
    socket.once("close", finish);
  });
}

/** Starts tracking one in-flight request: its abort signal, and a promise that settles when the response ends or the client goes. */
export function startFlight(index: number, body: unknown, req: IncomingMessage, res: ServerResponse): Flight {
  const stop = new AbortController();
  let settle!: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));

  const record: RecordedRequest = {
    index,
    url: req.url ?? "/",
    body,
    headers: req.headers,
    closedEarly: false,
    chunksWritten: 0,
    sentAt: [],
    outcome: undefined,
    done,
  };

  const socket = req.socket;
  const cut = (outcome: RequestOutcome) => {
    if (record.outcome === undefined) {
      record.outcome = outcome;
      if (outcome === "client-closed") record.closedEarly = true;
    }
    // A keep-alive socket outlives this request: do not pile listeners onto it.
    socket.off("close", onClose);
    stop.abort();
    settle();
  };

  // 'close' fires both after a normal end and when the peer goes away; writableFinished tells which.
  function onClose() {
    cut(res.writableFinished ? "completed" : "client-closed");
  }
  res.once("close", onClose);
  socket.once("close", onClose);
  // A write into a socket the client already closed raises EPIPE/ECONNRESET: that is the close we
  // record, not a crash.
  res.on("error", () => cut("client-closed"));

  const reset = async (mode: "abortive" | "truncate") => {
    if (record.outcome === undefined) record.outcome = "reset";
    if (mode === "truncate") await flushed(socket);
    cut("reset");
    const resettable = socket as unknown as ResettableSocket;
    if (mode === "abortive" && typeof resettable.resetAndDestroy === "function") resettable.resetAndDestroy();
    else resettable.destroy();
  };

  return { record, signal: stop.signal, cut, reset };
}
