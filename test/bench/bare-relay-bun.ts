/**
 * The floor for the proxy bench on Bun's own HTTP stack: a bare relay on `Bun.serve` and fetch
 * (what the proxy serves with on Bun) with no loopguard in it (no parsing, no guard, no verdict),
 * each upstream read written and flushed to the client at once. Not a product: bench use only.
 *
 *   bun test/bench/bare-relay-bun.ts --upstream http://127.0.0.1:PORT/v1 --listen 127.0.0.1:PORT
 */
import { serveBunRelay } from "./lib/bun-relay.js"

interface DirectController {
  write(chunk: Uint8Array): unknown
  flush(): unknown
  close(): void
}

serveBunRelay("bare Bun relay", (up) => {
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
})
