/** A local port nothing listens on right now (for a child process told to listen on it). */
import { createServer } from "node:net"

export const freePort = (): Promise<number> =>
  new Promise((done) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => done(port))
    })
  })
