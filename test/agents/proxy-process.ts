/**
 * `loopguard proxy` started from this checkout as a subprocess (its own process group), in front
 * of an upstream, on a free port of 127.0.0.1. Its state (session store) goes to a throwaway
 * directory.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort } from "../free-port.js"
import { startGroup, stopGroup } from "./processes.js"

const CLI_MAIN = fileURLToPath(new URL("../../packages/cli/src/main.ts", import.meta.url))
const READY_TIMEOUT_MS = 90_000

export interface ProxyProcess {
  /** `http://127.0.0.1:PORT/v1`: what an agent is pointed at. */
  readonly baseURL: string
  /** The proxy's stderr (its log lines for people) so far. */
  readonly log: () => string
  readonly stop: () => Promise<void>
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Starts the proxy in front of `upstreamURL` (a base URL as an agent is given it, `…/v1`), with
 * `env` added to its environment (its knobs), and waits until it forwards `GET /v1/models` to the upstream.
 */
export const startProxy = async (upstreamURL: string, env: Readonly<Record<string, string>> = {}): Promise<ProxyProcess> => {
  const state = mkdtempSync(join(tmpdir(), "lg-proxy-state-"))
  const port = await freePort()
  const listen = `127.0.0.1:${port}`
  const group = startGroup(process.execPath, ["run", CLI_MAIN, "proxy", "--upstream", upstreamURL, "--listen", listen, "--session-dir", state], {
    cwd: state,
    env: { ...(process.env as Record<string, string>), HOME: state, ...env }
  })
  const stop = async () => {
    await stopGroup(group.child)
    rmSync(state, { recursive: true, force: true })
  }
  const started = Date.now()
  while (Date.now() - started < READY_TIMEOUT_MS) {
    if (group.child.exitCode !== null) break
    const ready = await fetch(`http://${listen}/v1/models`).then((r) => r.ok, () => false)
    if (ready) return { baseURL: `http://${listen}/v1`, log: () => group.output().stderr, stop }
    await pause(250)
  }
  const { stderr } = group.output()
  await stop()
  throw new Error(`loopguard proxy did not start on ${listen} (exit ${group.child.exitCode}): ${stderr.slice(-2000)}`)
}
