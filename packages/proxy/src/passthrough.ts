/**
 * Every path the proxy does not guard (`/v1/models`, embeddings, …) goes upstream as it came:
 * same method, headers (hop-by-hop ones aside) and body, and the answer comes back as it was;
 * through node:http on Node's stack, through fetch on Bun's.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http"
import { request as httpsRequest } from "node:https"
import { fetchHeadersOf } from "./client-reply.js"
import { nodeHeadersOf } from "./fetch-reply.js"
import { authorized, clientHeaders, errorBody, sendError, upstreamHeaders, upstreamUrlOf, type AuthPolicy } from "./http-util.js"
import { routeFor, type RoutingConfig } from "./routes.js"

export const passThrough = (req: IncomingMessage, res: ServerResponse, routing: RoutingConfig, auth: AuthPolicy, sessionHeader: string): void => {
  if (!authorized(req.headers, auth, req.url ?? "")) return sendError(res, null, 401, "loopguard proxy: present the proxy token as your API key")
  const route = routeFor(routing, undefined, req.url ?? "/")
  if (route === null) return sendError(res, null, 502, "loopguard proxy: no upstream configured for this path")
  const url = upstreamUrlOf(route.base, req.url ?? "/", auth)
  const send = url.protocol === "https:" ? httpsRequest : httpRequest
  const headers = upstreamHeaders(req.headers, [sessionHeader], auth, null, false)
  if (req.headers["content-length"] !== undefined) headers["content-length"] = req.headers["content-length"]
  const upstream = send(url, { method: req.method ?? "GET", headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, clientHeaders(answer.headers, {}, true))
    answer.pipe(res)
  })
  upstream.on("error", (e) => sendError(res, null, 502, `loopguard proxy: the upstream failed: ${e.message}`))
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy()
  })
  req.pipe(upstream)
}

/** An error answer as a fetch Response (Bun's server). */
const errorResponse = (status: number, message: string): Response => new Response(errorBody(null, status, message), { status, headers: { "content-type": "application/json" } })

/** `passThrough` on Bun's server: the request goes upstream through fetch, and the answer streams back as it came. */
export const passThroughFetch = async (request: Request, pathAndQuery: string, routing: RoutingConfig, auth: AuthPolicy, sessionHeader: string): Promise<Response> => {
  const incoming = nodeHeadersOf(request.headers)
  if (!authorized(incoming, auth, pathAndQuery)) return errorResponse(401, "loopguard proxy: present the proxy token as your API key")
  const route = routeFor(routing, undefined, pathAndQuery)
  if (route === null) return errorResponse(502, "loopguard proxy: no upstream configured for this path")
  const hasBody = request.method !== "GET" && request.method !== "HEAD"
  try {
    // decompress: false: the body is passed on as the upstream sent it, its content-encoding with it.
    const init = { method: request.method, headers: fetchHeadersOf(upstreamHeaders(incoming, [sessionHeader], auth, null, false)), body: hasBody ? request.body : null, duplex: "half", redirect: "manual", decompress: false, signal: request.signal }
    const answer = await fetch(upstreamUrlOf(route.base, pathAndQuery, auth), init as RequestInit)
    return new Response(answer.body, { status: answer.status, headers: fetchHeadersOf(clientHeaders(nodeHeadersOf(answer.headers), {}, true)) })
  } catch (e) {
    return errorResponse(502, `loopguard proxy: the upstream failed: ${e instanceof Error ? e.message : String(e)}`)
  }
}
