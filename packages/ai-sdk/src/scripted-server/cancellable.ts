/**
 * Waiting and writing that stop the moment a response is cut (client gone, reset, server closing),
 * so no timer or pending write outlives the connection it was for.
 */
import type { ServerResponse } from "node:http";

/** Resolves after `ms`, or as soon as `signal` aborts; `Infinity` waits for the abort alone. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      resolve();
    };
    signal.addEventListener("abort", finish, { once: true });
    if (Number.isFinite(ms)) timer = setTimeout(finish, Math.max(0, ms));
  });
}

/**
 * Writes one frame honouring back-pressure: when the socket buffer is full, waits for `drain`
 * (or the cut) before returning. Returns false once the response is cut, so callers stop at once.
 */
export function writeFrame(res: ServerResponse, frame: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || res.destroyed) return Promise.resolve(false);
  if (res.write(frame)) return Promise.resolve(!signal.aborted);
  return new Promise((resolve) => {
    const finish = () => {
      res.off("drain", finish);
      signal.removeEventListener("abort", finish);
      resolve(!signal.aborted);
    };
    res.once("drain", finish);
    signal.addEventListener("abort", finish, { once: true });
  });
}
