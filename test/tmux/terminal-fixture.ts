/**
 * What the terminal suites share: the environment of a person's terminal, and scripted servers,
 * tmux servers and temp folders that are gone after each test (folders after the suite).
 */
import type { ScriptedServer } from "@loopguard/ai-sdk/testing"
import { afterAll, afterEach } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TmuxServer } from "./tmux-driver.js"

/** The environment of a person's terminal: no LOOPGUARD_* settings, colour decided by the terminal. */
export const terminalEnv = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith("LOOPGUARD_") || k === "NO_COLOR" || k === "FORCE_COLOR" || k.startsWith("TMUX")) continue
    env[k] = v
  }
  return { ...env, TERM: "xterm-256color", ...extra }
}

/** Registers the cleanup hooks of one suite; returns where to record what must be cleaned up. */
export const terminalScratch = (prefix: string) => {
  const servers: Array<ScriptedServer> = []
  const terminals: Array<TmuxServer> = []
  const dirs: Array<string> = []
  afterEach(async () => {
    for (const t of terminals.splice(0)) t.close()
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })
  afterAll(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  return {
    servers,
    terminals,
    tempDir: (): string => {
      const d = mkdtempSync(join(tmpdir(), prefix))
      dirs.push(d)
      return d
    }
  }
}
