/**
 * What the bench's Bun relays share: `--upstream URL --listen HOST:PORT` from the command line, a
 * `Bun.serve` that sends each request on to the upstream through fetch, and `answer` making the
 * client's response from the upstream's. Not a product: bench use only.
 */
export const arg = (name: string): string => process.argv[process.argv.indexOf(name) + 1] ?? ""

export const serveBunRelay = (name: string, answer: (upstream: Response, signal: AbortSignal) => Response | Promise<Response>): void => {
  const upstream = new URL(arg("--upstream"))
  const [host, port] = arg("--listen").split(":")
  Bun.serve({
    hostname: host,
    port: Number(port),
    idleTimeout: 0,
    async fetch(req) {
      const path = upstream.pathname.replace(/\/v1$/, "") + new URL(req.url).pathname
      const up = await fetch(`${upstream.origin}${path}`, { method: req.method, headers: { "content-type": "application/json" }, body: await req.arrayBuffer(), signal: req.signal })
      return answer(up, req.signal)
    }
  })
  process.stderr.write(`${name} listening on ${host}:${port}\n`)
}
