/**
 * A local model server that answers from a script, in OpenAI Chat Completions and, on
 * `/v1/responses` and `/v1/messages`, OpenAI Responses and Anthropic Messages, and on
 * `/v1beta/models/{model}:streamGenerateContent` and `:generateContent`, the Gemini API. Used by the offline demo and
 * by every HTTP test: it lets the real AI SDK providers meet rate limits, resets, stalls and loops
 * on demand.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createHash } from "node:crypto";
import { appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { startFlight, type Flight } from "./flight.js";
import { geminiPath } from "./gemini-frames.js";
import type { ScriptedProtocol } from "./protocol-frames.js";
import { modelsBody, openAIErrorBody } from "./json-bodies.js";
import { serveError, serveResponse } from "./serve-response.js";
import { withUsage } from "./usage-estimate.js";
import {
  DEFAULT_SCRIPTED_SERVER_OPTIONS,
  type RecordedRequest,
  type Script,
  type ScriptedResponse,
  type ScriptedServer,
  type ScriptedServerOptions,
} from "./types.js";

/** The scripted endpoints and the protocol each speaks; every one plays the same script. */
const PROTOCOL_PATHS: ReadonlyMap<string, ScriptedProtocol> = new Map([
  ["/v1/chat/completions", "chat"],
  ["/chat/completions", "chat"],
  ["/v1/responses", "responses"],
  ["/responses", "responses"],
  ["/v1/messages", "messages"],
  ["/messages", "messages"],
]);
const MODEL_PATHS = new Set(["/v1/models", "/models"]);

function sendJson(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    // A client that vanishes mid-upload still gets recorded with what arrived.
    req.on("error", () => resolve(Buffer.concat(parts).toString("utf8")));
  });
}

function parseBody(text: string): { ok: true; value: any } | { ok: false; value: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: text };
  }
}

/** Temporary directories (`mkdtemp`: a prefix and six random characters) differ on every run; the hash must not. */
const TEMP_DIR_SUFFIX = new RegExp(`(${tmpdir().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[A-Za-z0-9._-]*[-_])[A-Za-z0-9]{6}(?![A-Za-z0-9])`, "g");

/**
 * Test aid: with SCRIPTED_SERVER_BODY_HASHES naming a file, every request body received is appended
 * to it as `sha256 path` lines (temporary directory names made equal first), so two runs of a suite
 * can be compared for byte-identical requests. Not a `LOOPGUARD_` name: spawned CLIs inherit it, and
 * the CLI refuses a `LOOPGUARD_` variable it does not know.
 */
function recordBodyHash(path: string, text: string): void {
  const file = process.env.SCRIPTED_SERVER_BODY_HASHES;
  if (file === undefined || file === "") return;
  const stable = text.replace(TEMP_DIR_SUFFIX, "$1XXXXXX");
  appendFileSync(file, `${createHash("sha256").update(stable).digest("hex")} ${path}\n`);
}

const exhausted = (count: number): ScriptedResponse => ({
  type: "error",
  status: 500,
  body: openAIErrorBody(500, `script exhausted: all ${count} scripted responses were served`, "script_exhausted"),
});

async function pick(
  script: Script,
  body: unknown,
  index: number,
  whenExhausted: "error" | "repeat-last",
  headers: IncomingHttpHeaders,
): Promise<ScriptedResponse> {
  if (typeof script === "function") {
    try {
      return await script(body, index, headers);
    } catch (cause) {
      const message = `script function threw: ${cause instanceof Error ? cause.message : String(cause)}`;
      return { type: "error", status: 500, body: openAIErrorBody(500, message, "script_error") };
    }
  }
  if (index < script.length) return script[index]!;
  if (whenExhausted === "repeat-last" && script.length > 0) return script[script.length - 1]!;
  return exhausted(script.length);
}

/** Starts the scripted OpenAI-compatible server on 127.0.0.1 (a free port); it plays `script` one response per request and records every request. */
export async function startScriptedServer(script: Script, opts: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const options = { ...DEFAULT_SCRIPTED_SERVER_OPTIONS, ...opts };
  const requests: RecordedRequest[] = [];
  const inFlight = new Set<Flight>();
  const sockets = new Set<Socket>();
  let closing = false;

  const handleChat = async (req: IncomingMessage, res: ServerResponse, protocol: ScriptedProtocol, path: string) => {
    const text = await readBody(req);
    recordBodyHash(path, text);
    const parsed = parseBody(text);
    const index = requests.length;
    const flight = startFlight(index, parsed.value, req, res);
    requests.push(flight.record);
    if (closing) return flight.cut("server-closed");
    inFlight.add(flight);
    void flight.record.done.then(() => inFlight.delete(flight));

    if (!parsed.ok) {
      serveError({ type: "error", status: 400, body: openAIErrorBody(400, "request body is not JSON") }, res);
      return;
    }
    const picked = await pick(script, parsed.value, index, options.whenExhausted, req.headers);
    const response = picked.type === "stream" && !options.omitUsage ? withUsage(picked, parsed.value) : picked;
    if (flight.signal.aborted) return;
    const prefix = protocol === "responses" ? "resp" : protocol === "messages" ? "msg" : protocol === "gemini" ? "gemini" : "chatcmpl";
    const who = { id: `${prefix}-scripted-${index}`, created: Math.floor(options.now() / 1000), model: options.modelId };
    // Gemini names streaming in the path, the others in the body.
    const wantsStream = protocol === "gemini" ? geminiPath(path)?.stream === true : parsed.value?.stream === true;
    await serveResponse(response, wantsStream, who, res, flight, protocol);
  };

  // Loaded here, not at the top: the CLI bundle holds this server for `demo`, and a static import
  // would load node:http on every start-up of `run`, which never serves anything.
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const protocol = PROTOCOL_PATHS.get(path) ?? (geminiPath(path) !== null ? "gemini" : undefined);
    if (req.method === "POST" && protocol !== undefined) {
      void handleChat(req, res, protocol, path).catch(() => {
        if (!res.headersSent) sendJson(res, 500, openAIErrorBody(500, "scripted server failure"));
        else res.destroy();
      });
    } else if (req.method === "GET" && MODEL_PATHS.has(path)) {
      sendJson(res, 200, modelsBody(options.modelId, Math.floor(Date.now() / 1000)));
    } else {
      sendJson(res, 404, openAIErrorBody(404, `no route for ${req.method} ${path}`, "not_found"));
    }
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {}); // resets and client aborts surface here; they are recorded, not fatal
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host}:${port}`;

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      closing = true;
      for (const flight of inFlight) flight.cut("server-closed");
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    }));

  return { url, baseURL: `${url}/v1`, modelId: options.modelId, requests, close };
}
