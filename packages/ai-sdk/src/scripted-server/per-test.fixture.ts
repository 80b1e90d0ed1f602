/** Scripted servers for one test file: each test's servers are closed after it (bun:test `afterEach`). */
import { afterEach } from "bun:test"
import { startScriptedServer } from "./server.js"
import type { Script, ScriptedServer, ScriptedServerOptions } from "./types.js"

export const scriptedServersPerTest = () => {
  const open: Array<ScriptedServer> = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()))
  })
  /** Starts a server that is closed after the current test. */
  const serve = async (script: Script, options?: ScriptedServerOptions): Promise<ScriptedServer> => {
    const server = await startScriptedServer(script, options)
    open.push(server)
    return server
  }
  return { serve }
}
