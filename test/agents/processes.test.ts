import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, test } from "bun:test"
import { killProcessesUnder } from "./processes.js"

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

test("a process that left the run's group (a session of its own) is found by the run's folder and killed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lg-processes-"))
  // detached: a new session and group, as an agent's setsid child; it works in the run's folder.
  const child = spawn("sleep", ["30"], { cwd: dir, detached: true, stdio: "ignore" })
  const other = spawn("sleep", ["30"], { cwd: tmpdir(), detached: true, stdio: "ignore" })
  try {
    await new Promise((r) => setTimeout(r, 100))
    expect(alive(child.pid!)).toBe(true)
    await killProcessesUnder(dir)
    await new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r())))
    expect(child.signalCode).toBe("SIGKILL")
    // A process elsewhere is not the run's.
    expect(alive(other.pid!)).toBe(true)
  } finally {
    other.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
}, 20_000)
