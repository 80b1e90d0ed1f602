/**
 * A TCP relay in front of a database, for tests where the database goes away mid-run without
 * stopping the shared test server: `freeze` keeps every socket open and forwards nothing more
 * (a server that stopped answering, a dropped network), `cut` resets every socket and refuses
 * new ones (a server that was stopped).
 */
import net from "node:net"

export interface TcpProxy {
  /** `target` with the relay's port. */
  readonly url: string
  readonly freeze: () => void
  readonly cut: () => void
  readonly close: () => void
}

export const startTcpProxy = async (target: string): Promise<TcpProxy> => {
  const upstreamUrl = new URL(target)
  const sockets = new Set<net.Socket>()
  let mode: "open" | "frozen" | "cut" = "open"
  const relay = (from: net.Socket, to: net.Socket) => {
    from.on("data", (d) => void (mode === "open" && to.write(d)))
    from.on("error", () => to.destroy())
    from.on("close", () => to.destroy())
  }
  const server = net.createServer((client) => {
    if (mode === "cut") return void client.destroy()
    sockets.add(client)
    if (mode === "frozen") return
    const upstream = net.connect(Number(upstreamUrl.port), upstreamUrl.hostname)
    sockets.add(upstream)
    relay(client, upstream)
    relay(upstream, client)
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  const url = new URL(target)
  url.port = String((server.address() as net.AddressInfo).port)
  const destroyAll = () => {
    for (const s of sockets) s.destroy()
    sockets.clear()
  }
  return {
    url: url.toString(),
    freeze: () => void (mode = "frozen"),
    cut: () => {
      mode = "cut"
      destroyAll()
    },
    close: () => {
      destroyAll()
      server.close()
    }
  }
}
