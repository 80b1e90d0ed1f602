/**
 * Is a command installed? The hand-off menu offers a harness only when its command is on PATH.
 * Injected everywhere else, so tests decide what is "installed" without touching the machine.
 */
import { accessSync, constants, statSync } from "node:fs"
import { delimiter, join } from "node:path"

export type CommandLookup = (command: string) => boolean

/** True when an executable file named `command` is in one of PATH's directories. */
export const commandOnPath =
  (env: Readonly<Record<string, string | undefined>> = process.env): CommandLookup =>
  (command) => {
    if (command === "" || command.includes("/") || command.includes("\\")) return false
    const dirs = (env["PATH"] ?? "").split(delimiter).filter((d) => d !== "")
    // Windows resolves `codex` through PATHEXT (codex.cmd, codex.exe).
    const exts = process.platform === "win32" ? ["", ...(env["PATHEXT"] ?? ".EXE;.CMD;.BAT").split(";")] : [""]
    for (const dir of dirs) {
      for (const ext of exts) {
        const full = join(dir, command + ext)
        try {
          if (!statSync(full).isFile()) continue
          accessSync(full, constants.X_OK)
          return true
        } catch {
          // not here, or not executable: keep looking
        }
      }
    }
    return false
  }

/** A lookup that finds exactly the given commands (tests, or an explicit allow-list). */
export const commandsInstalled =
  (...commands: ReadonlyArray<string>): CommandLookup =>
  (command) =>
    commands.includes(command)
