/**
 * The floor for the proxy bench on Bun's own HTTP stack: a bare relay on `Bun.serve` and fetch
 * (what the proxy serves with on Bun) with no loopguard in it (no parsing, no guard, no verdict),
 * each upstream read written and flushed to the client at once. Not a product: bench use only.
 *
 *   bun test/bench/bare-relay-bun.ts --upstream http://127.0.0.1:PORT/v1 --listen 127.0.0.1:PORT
 */
const arg = (name: string): string => process.argv[process.argv.indexOf(name) + 1] ?? ""
const upstream = new URL(arg("--upstream"))
const [host, port] = arg("--listen").split(":")

interface DirectController {
  write(chunk: Uint8Array): unknown
  flush(): unknown
  close(): void
}

Bun.serve({
  hostname: host,
  port: Number(port),
  idleTimeout: 0,
  async fetch(req) {
    const path = upstream.pathname.replace(/\/v1$/, "") + new URL(req.url).pathname
    const up = await fetch(`${upstream.origin}${path}`, { method: req.method, headers: { "content-type": "application/json" }, body: await req.arrayBuffer(), signal: req.signal })
    const reader = up.body!.getReader()
    const body = new ReadableStream({
      type: "direct",
      async pull(controller: DirectController) {
        for (let c = await reader.read(); !c.done; c = await reader.read()) {
          controller.write(c.value)
          controller.flush()
        }
        controller.close()
      }
    } as unknown as UnderlyingDefaultSource<Uint8Array>)
    return new Response(body, { status: up.status, headers: { "content-type": up.headers.get("content-type") ?? "text/event-stream" } })
  }
})
process.stderr.write(`bare Bun relay listening on ${host}:${port}\n`)
