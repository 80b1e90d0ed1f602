/**
 * What a line typed in `loopguard chat` means: a prompt for the model, or one of the slash
 * commands. Pure; a wrong command is an answer naming what is wrong, never an exception.
 */
export type SlashCommand =
  | { readonly name: "help" }
  | { readonly name: "report" }
  | { readonly name: "retry" }
  | { readonly name: "config" }
  | { readonly name: "export"; readonly file: string }
  | { readonly name: "sessions" }
  | { readonly name: "quit" }

export type ChatLine =
  | { readonly type: "prompt"; readonly text: string }
  | { readonly type: "command"; readonly command: SlashCommand }
  | { readonly type: "empty" }
  | { readonly type: "invalid"; readonly message: string }

/** The commands and what each does, in the order `/help` lists them. */
export const SLASH_HELP: ReadonlyArray<readonly [string, string]> = [
  ["/report", "the last turn's report: how it ended, steps, tokens, cost, what to do next"],
  ["/retry", "send the last message again, as a new turn"],
  ["/config", "the endpoint, the session and the settings in force"],
  ["/export FILE", "write this session to FILE as a trace (v1), readable by `loopguard audit`"],
  ["/sessions", "the sessions kept in --session-dir"],
  ["/help", "this list"],
  ["/quit", "leave (Ctrl-D does too)"]
]

const BARE: Readonly<Record<string, SlashCommand>> = {
  help: { name: "help" },
  "?": { name: "help" },
  report: { name: "report" },
  retry: { name: "retry" },
  config: { name: "config" },
  sessions: { name: "sessions" },
  quit: { name: "quit" },
  exit: { name: "quit" }
}

export const parseChatLine = (line: string): ChatLine => {
  const text = line.trim()
  if (text === "") return { type: "empty" }
  // `//text` sends a prompt that starts with a slash.
  if (text.startsWith("//")) return { type: "prompt", text: text.slice(1) }
  if (!text.startsWith("/")) return { type: "prompt", text }
  const [head = "", ...rest] = text.slice(1).split(/\s+/)
  const name = head.toLowerCase()
  const arg = rest.join(" ").trim()
  if (name === "export") {
    if (arg === "") return { type: "invalid", message: "/export needs a file name: /export FILE" }
    return { type: "command", command: { name: "export", file: arg } }
  }
  const bare = BARE[name]
  if (bare === undefined) return { type: "invalid", message: `unknown command /${head}; /help lists the commands (start a prompt with // to send a leading slash)` }
  if (arg !== "") return { type: "invalid", message: `/${name} takes no argument (got "${arg}")` }
  return { type: "command", command: bare }
}
