/**
 * The floor for the proxy bench: a bare node:http relay with no loopguard in it (no parsing, no
 * guard, no verdict), run on the same runtime as the proxy, so the bench can say what the runtime's
 * HTTP stack costs on this machine apart from what loopguard adds. Not a product: bench use only.
 *
 *   bare-relay.mjs --upstream http://127.0.0.1:PORT/v1 --listen 127.0.0.1:PORT
 */
import { createServer, request } from "node:http"

const arg = (name) => process.argv[process.argv.indexOf(name) + 1]
const upstream = new URL(arg("--upstream"))
const [host, port] = arg("--listen").split(":")

createServer((req, res) => {
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", () => {
    const body = Buffer.concat(chunks)
    const path = upstream.pathname.replace(/\/v1$/, "") + req.url
    const headers = { "content-type": "application/json", "content-length": body.length }
    if (req.headers["x-bench-id"] !== undefined) headers["x-bench-id"] = req.headers["x-bench-id"]
    const up = request({ host: upstream.hostname, port: upstream.port, path, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, { "content-type": r.headers["content-type"] ?? "text/event-stream" })
      r.on("data", (c) => res.write(c))
      r.on("end", () => res.end())
    })
    up.on("error", () => res.destroy())
    res.on("close", () => up.destroy())
    up.end(body)
  })
}).listen(Number(port), host, () => process.stderr.write(`bare relay listening on ${host}:${port}\n`))
