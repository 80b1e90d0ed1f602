/**
 * One run of one real agent against the scripted server, direct or through `loopguard proxy`, in a
 * fresh workspace; what the judges read afterwards: the server's request log, the marker file and
 * how the agent ended.
 */
import { startScriptedServer, type RecordedRequest, type Script } from "@loopguard/ai-sdk/testing"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import type { AgentSpec } from "./agents.js"
import { killProcessesUnder, runBounded, type RunOutcome } from "./processes.js"
import { startProxy } from "./proxy-process.js"

export const MODEL_ID = "scripted-model"

export interface CaseResult {
  readonly outcome: RunOutcome
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The marker file's text ("" when the agent never wrote it). */
  readonly marker: string
  readonly workspace: string
  readonly home: string
  /** The proxy's stderr ("" when run direct). */
  readonly proxyLog: string
}

export interface CaseOptions {
  readonly agent: AgentSpec
  readonly installDir: string
  readonly script: Script
  readonly prompt: string
  readonly viaProxy: boolean
  readonly deadlineMs: number
  /** Kill the agent as soon as the marker file has this many lines (the baseline runs). */
  readonly stopAtMarkerLines?: number
  /** The proxy's environment beyond this process's (its knobs, `LOOPGUARD_PROXY_…`). */
  readonly proxyEnv?: Readonly<Record<string, string>>
}

export const markerLines = (text: string): number => text.split("\n").filter((l) => l.length > 0).length

const readMarker = (workspace: string): string => {
  const path = join(workspace, "marker.txt")
  return existsSync(path) ? readFileSync(path, "utf8") : ""
}

/** Runs the agent once; the server, the proxy and the agent's process group are gone when it resolves. */
export const runCase = async (options: CaseOptions): Promise<CaseResult> => {
  const root = mkdtempSync(join(tmpdir(), `lg-agent-${options.agent.name}-`))
  const workspace = join(root, "workspace")
  const home = join(root, "home")
  for (const dir of [workspace, home, join(home, "tmp")]) mkdirSync(dir, { recursive: true })
  const server = await startScriptedServer(options.script, { modelId: MODEL_ID })
  const proxy = options.viaProxy ? await startProxy(server.baseURL, options.proxyEnv).catch(async (e) => {
    await server.close()
    throw e
  }) : undefined
  try {
    const baseURL = proxy?.baseURL ?? server.baseURL
    const call = options.agent.invocation(options.installDir, { baseURL, modelId: MODEL_ID, workspace, home, prompt: options.prompt })
    const stopAt = options.stopAtMarkerLines
    const outcome = await runBounded(call.command, call.args, {
      cwd: workspace,
      env: call.env,
      deadlineMs: options.deadlineMs,
      ...(stopAt !== undefined ? { stopWhen: () => markerLines(readMarker(workspace)) >= stopAt } : {})
    })
    // The group is gone; a process the agent started in a session of its own may not be.
    await killProcessesUnder(root)
    return { outcome, requests: [...server.requests], marker: readMarker(workspace), workspace, home, proxyLog: proxy?.log() ?? "" }
  } finally {
    await proxy?.stop()
    await server.close()
  }
}

/** Removes a case's workspace and home (kept until the judge has read them). */
export const cleanCase = (result: CaseResult): void => rmSync(join(result.workspace, ".."), { recursive: true, force: true })

/** Requests that offered tools: the agent's own steps (not title or summary side requests). */
export const agentSteps = (requests: ReadonlyArray<RecordedRequest>): ReadonlyArray<RecordedRequest> =>
  requests.filter((r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0)

/**
 * A request body with the run's own folder name replaced (it appears in paths, and in names agents
 * derive from paths), then the agent's volatile fields dropped, so a direct run and a proxied run
 * of the same task compare equal when the proxy changed nothing.
 */
export const normalisedBody = (body: unknown, result: CaseResult, volatile: (body: any) => any = (b) => b): unknown =>
  volatile(JSON.parse(JSON.stringify(body).split(basename(join(result.workspace, ".."))).join("<run>")))
