/**
 * The vocabulary of the scripted OpenAI-compatible server: what a script says, and what the
 * server records about each request it served.
 */
import type { IncomingHttpHeaders } from "node:http";

/** One piece of a streamed reply. */
export type ScriptedChunk =
  | { readonly text: string }
  | { readonly reasoning: string }
  | { readonly toolCall: ScriptedToolCall }
  /** Written verbatim as `data: <raw>\n\n` (use it for malformed JSON, mid-stream error objects…). */
  | { readonly raw: string };

export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  /** The JSON argument string, exactly as the model would emit it (it may be invalid JSON on purpose). */
  readonly arguments: string;
  /** Split `arguments` into this many deltas (default 1). Each piece is its own SSE event. */
  readonly pieces?: number;
}

/** OpenAI wire finish reasons; `null` ends the stream with no finish_reason at all. */
export type WireFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export interface WireUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/**
 * A streamed (SSE) reply. When the request says `stream: false` the same script is answered as one
 * JSON completion (see `completion-json.ts` for what carries over).
 *
 * Counting: `stallAfterChunks` / `resetAfterChunks` count SSE *content events* — one per text,
 * reasoning or raw chunk, and one per argument piece of a tool call. The finish, usage and `[DONE]`
 * events are not counted, so `stallAfterChunks: chunks.length` stalls just before the finish event.
 */
export interface StreamResponse {
  readonly type: "stream";
  readonly chunks: ReadonlyArray<ScriptedChunk>;
  /** Default: "tool_calls" when any chunk is a tool call, else "stop". `null` = no finish_reason. */
  readonly finish?: WireFinishReason | null;
  /** Sent as a last `choices: []` chunk carrying `usage`, before `[DONE]`. */
  readonly usage?: WireUsage;
  /** Pause between consecutive events. */
  readonly chunkDelayMs?: number;
  /** After this many content events, go silent for `stallMs`. */
  readonly stallAfterChunks?: number;
  /** How long the stall lasts; default (and `Infinity`) = until the client or the server closes. */
  readonly stallMs?: number;
  /** After this many content events, reset the connection (headers and earlier events were sent). */
  readonly resetAfterChunks?: number;
  /** Which delta field carries reasoning (default "reasoning_content"). */
  readonly reasoningField?: "reasoning_content" | "reasoning";
}

export interface ErrorResponse {
  readonly type: "error";
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * An object is sent as JSON, a string verbatim as text/plain, bytes verbatim (set the headers:
   * e.g. a gzip body with `content-encoding: gzip`). Default: OpenAI-style `{error:{…}}`.
   * With a 2xx status this is how a server that answers without an event stream is played.
   */
  readonly body?: unknown;
}

/** Destroy the connection before any byte of the response. */
export interface ResetResponse {
  readonly type: "reset";
}

export type ScriptedResponse = StreamResponse | ErrorResponse | ResetResponse;

/**
 * Either a list served in order, or a function of the parsed request body and the 0-based index of
 * the chat-completions request.
 */
export type Script =
  | ReadonlyArray<ScriptedResponse>
  | ((body: any, index: number, headers: IncomingHttpHeaders) => ScriptedResponse | Promise<ScriptedResponse>);

/** How a recorded request ended. */
export type RequestOutcome =
  /** The whole response was written and ended. */
  | "completed"
  /** The client closed the connection before the response ended. */
  | "client-closed"
  /** The script reset the connection (`{type:"reset"}` or `resetAfterChunks`). */
  | "reset"
  /** `ScriptedServer.close()` cut the response short. */
  | "server-closed";

export interface RecordedRequest {
  /** 0-based order among model requests of every protocol (the script index). */
  readonly index: number;
  /** The request's path and query, as it arrived. */
  readonly url: string;
  /** Parsed JSON body (the raw text when it was not JSON). */
  readonly body: any;
  readonly headers: IncomingHttpHeaders;
  /** The client closed before we finished writing. */
  closedEarly: boolean;
  /** Content events (see `StreamResponse`) handed to the socket so far. */
  chunksWritten: number;
  /** When each content event was handed to the socket (`performance.now()` of this process): benches measure delays from it. */
  readonly sentAt: Array<number>;
  /** Set once `done` resolves; `undefined` while the response is in flight. */
  outcome: RequestOutcome | undefined;
  /** Resolves when the response ended or the connection closed, whichever comes first. */
  readonly done: Promise<void>;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `url + "/v1"`: give this to an OpenAI(-compatible) provider. */
  readonly baseURL: string;
  /** The model id listed by `GET /v1/models`. */
  readonly modelId: string;
  /** One entry per chat-completions request, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Stops listening, cuts every open response and connection, clears every timer. Idempotent. */
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  /** Listed by `GET /v1/models` and echoed in every completion chunk. Default "scripted-model". */
  readonly modelId?: string;
  /**
   * What a list script does once every entry was served: "error" answers 500 `script_exhausted`
   * (default: an unexpected extra call should be loud), "repeat-last" serves the last entry again.
   */
  readonly whenExhausted?: "error" | "repeat-last";
  /** Default "127.0.0.1". */
  readonly host?: string;
  /** Default 0 (any free port). */
  readonly port?: number;
  /** The clock the replies' `created` times come from (epoch ms); default `Date.now`. A fixed one makes two runs byte-identical. */
  readonly now?: () => number;
  /**
   * Plays a server that ignores `stream_options.include_usage`, as many local servers do: no usage
   * is estimated for a reply, so only a script's own `usage` is sent. Default false.
   */
  readonly omitUsage?: boolean;
}

export const DEFAULT_SCRIPTED_SERVER_OPTIONS = {
  modelId: "scripted-model",
  whenExhausted: "error",
  host: "127.0.0.1",
  port: 0,
  now: Date.now,
  omitUsage: false,
} as const satisfies Required<ScriptedServerOptions>;
