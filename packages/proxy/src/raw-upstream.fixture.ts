/**
 * An upstream whose replies are written by hand (a raw node:http server), and a proxy in front of it
 * with a chunk timeout of the test's choosing: for the shapes of reply the scripted server does not
 * produce.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { configWith } from "./proxy.fixture.js"
import { startProxy, type ProxyEvent } from "./server.js"

export interface RawUpstream {
  readonly url: string
  readonly requests: () => number
  readonly close: () => Promise<void>
}

/** An upstream that answers every request with `reply`, written by hand. */
export const rawUpstream = async (reply: (req: IncomingMessage, res: ServerResponse) => void): Promise<RawUpstream> => {
  let count = 0
  const server: Server = createServer((req, res) => {
    count += 1
    req.resume()
    req.on("end", () => reply(req, res))
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => count,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}

/** The proxy in front of `url`, on `stack`, its events pushed to `events`. */
export const proxyFor = async (url: string, stack: "bun" | "node", events: Array<ProxyEvent>, chunkTimeoutMs = 2_000) =>
  startProxy({
    config: configWith(url, (c) => ({ ...c, stream: { ...c.stream, chunkTimeoutMs } })),
    host: "127.0.0.1",
    port: 0,
    httpStack: stack,
    onEvent: (e) => events.push(e)
  })
