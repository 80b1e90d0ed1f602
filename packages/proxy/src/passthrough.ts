/**
 * Every path the proxy does not guard (`/v1/models`, embeddings, …) goes upstream as it came:
 * same method, headers (hop-by-hop ones aside) and body, and the answer comes back as it was.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http"
import { request as httpsRequest } from "node:https"
import { authorized, clientHeaders, sendError, upstreamHeaders, type AuthPolicy } from "./http-util.js"
import { routeFor, upstreamUrl, type RoutingConfig } from "./routes.js"

export const passThrough = (req: IncomingMessage, res: ServerResponse, routing: RoutingConfig, auth: AuthPolicy, sessionHeader: string): void => {
  if (!authorized(req.headers, auth)) return sendError(res, null, 401, "loopguard proxy: present the proxy token as your API key")
  const route = routeFor(routing, undefined, req.url ?? "/")
  if (route === null) return sendError(res, null, 502, "loopguard proxy: no upstream configured for this path")
  const url = upstreamUrl(route.base, req.url ?? "/")
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
