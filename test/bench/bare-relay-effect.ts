/**
 * The floor for the proxy bench on Effect's own HTTP stack: a bare relay written the way a user of
 * Effect's platform would write one, with no loopguard in it (no parsing, no guard, no verdict).
 * The server is `@effect/platform-node`'s `NodeHttpServer` (node:http under the platform's request
 * and response), the upstream call Effect's `FetchHttpClient`, and the upstream body goes back as
 * `HttpServerResponse.stream`. Not a product: bench use only. Runs on Bun from the sources and on
 * Node from a bundle (the bench builds it).
 *
 *   bun test/bench/bare-relay-effect.ts --upstream http://127.0.0.1:PORT/v1 --listen 127.0.0.1:PORT
 */
import { createServer } from "node:http"
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
// @effect/platform-node is a dependency of the CLI package, not of the repository root: taken from there.
import * as NodeHttpServer from "../../packages/cli/node_modules/@effect/platform-node/dist/NodeHttpServer.js"
import * as NodeRuntime from "../../packages/cli/node_modules/@effect/platform-node/dist/NodeRuntime.js"

const arg = (name: string): string => process.argv[process.argv.indexOf(name) + 1] ?? ""
const upstream = new URL(arg("--upstream"))
const [host, port] = arg("--listen").split(":")

const relay = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = new Uint8Array(yield* request.arrayBuffer)
  const path = upstream.pathname.replace(/\/v1$/, "") + new URL(request.url, upstream.origin).pathname
  const reply = yield* HttpClient.execute(HttpClientRequest.post(`${upstream.origin}${path}`).pipe(HttpClientRequest.bodyUint8Array(body, "application/json")))
  return HttpServerResponse.stream(reply.stream, { status: reply.status, contentType: reply.headers["content-type"] ?? "text/event-stream" })
}).pipe(Effect.catch(() => Effect.succeed(HttpServerResponse.empty({ status: 502 }))))

// Said once the platform server is listening (built before this layer), as the bench waits for.
const listening = Layer.effectDiscard(HttpServer.addressFormattedWith((address) => Effect.sync(() => process.stderr.write(`bare Effect relay listening on ${address}\n`))))

const server = HttpServer.serve(relay).pipe(
  Layer.provideMerge(listening),
  Layer.provide(NodeHttpServer.layer(() => createServer({ requestTimeout: 0 }), { host, port: Number(port) })),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(Layer.launch(server))
