/**
 * Drives a program in a real terminal: a tmux server on a private socket, one session per
 * program, keys sent with send-keys and the screen read with capture-pane. Every wait polls the
 * screen for expected text up to a generous deadline, so a loaded machine is slower, not flaky.
 */
import { spawnSync } from "node:child_process"

export const tmuxPath = (): string | null => Bun.which("tmux")

export interface Pane {
  readonly name: string
  /** Sends keys as tmux names them (`Enter`, `C-c`) or literal text with `literal`. */
  readonly keys: (...keys: ReadonlyArray<string>) => void
  readonly type: (text: string) => void
  /** The whole pane, scrollback included, wrapped lines joined; with `escapes` the colour codes too. */
  readonly screen: (escapes?: boolean) => string
  /** Polls the screen until `want` shows (a string or a test), or fails naming what it saw. */
  readonly waitFor: (want: string | RegExp | ((screen: string) => boolean), timeoutMs?: number) => Promise<string>
  /** The program's exit status once it ended (the pane stays, `remain-on-exit`; 128 + N when killed by signal N), else null. */
  readonly exitStatus: () => number | null
}

export interface TmuxServer {
  readonly start: (name: string, argv: ReadonlyArray<string>, options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> }) => Pane
  readonly close: () => void
}

export const DEFAULT_WAIT_MS = 60_000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const startTmux = (tmux: string, socket: string): TmuxServer => {
  const run = (args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>) => {
    const r = spawnSync(tmux, ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8", ...(env !== undefined ? { env } : {}) })
    if (r.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr || r.error?.message}`)
    return r.stdout
  }
  const start: TmuxServer["start"] = (name, argv, options) => {
    // The first session starts the server with this environment; the program gets it too.
    run(["new-session", "-d", "-s", name, "-x", "160", "-y", "48", "-c", options.cwd, "--", ...argv], options.env)
    run(["set-option", "-t", name, "remain-on-exit", "on"])
    const screen = (escapes = false) => run(["capture-pane", "-p", "-J", ...(escapes ? ["-e"] : []), "-S", "-3000", "-t", name])
    return {
      name,
      keys: (...keys) => void run(["send-keys", "-t", name, ...keys]),
      type: (text) => {
        run(["send-keys", "-t", name, "-l", text])
        run(["send-keys", "-t", name, "Enter"])
      },
      screen,
      exitStatus: () => {
        // tmux can mark the pane dead (its terminal closed) before it has reaped the process: the
        // status is known only once one of the two fields is filled in.
        const [dead = "", status = "", signal = ""] = run(["display-message", "-p", "-t", name, "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}"]).trim().split("|")
        if (dead !== "1") return null
        if (/^\d+$/.test(status)) return Number(status)
        if (/^\d+$/.test(signal)) return 128 + Number(signal)
        return null
      },
      waitFor: async (want, timeoutMs = DEFAULT_WAIT_MS) => {
        const test = typeof want === "string" ? (s: string) => s.includes(want) : want instanceof RegExp ? (s: string) => want.test(s) : want
        const deadline = Date.now() + timeoutMs
        let last = ""
        while (Date.now() < deadline) {
          last = screen()
          if (test(last)) return last
          await sleep(100)
        }
        throw new Error(`waited ${timeoutMs} ms for ${String(want)}; the screen shows:\n${last.split("\n").slice(-40).join("\n")}`)
      }
    }
  }
  return {
    start,
    close: () => {
      spawnSync(tmux, ["-L", socket, "kill-server"])
    }
  }
}
