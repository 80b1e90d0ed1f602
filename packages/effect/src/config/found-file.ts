/**
 * A config file the CLI found in the working directory (`./loopguard.json(c)`), rather than one the
 * user named (`--config FILE`, `$LOOPGUARD_CONFIG`), may have come with the code in that directory: a
 * cloned repository can carry one. Such a file may tune the detectors, but not the keys that decide
 * what runs, where requests and their keys go, or who may connect: a planted one could otherwise send
 * an agent's key to its own host, open the proxy to web pages or the network, or run a command. Named,
 * the same file sets them all.
 */

export interface FoundFileRefusal {
  /** A config path; the key and everything under it are refused. */
  readonly path: string
  /** Why, in words that end "…" after "sets <path>, which". */
  readonly why: string
}

export const FOUND_FILE_REFUSED: ReadonlyArray<FoundFileRefusal> = [
  { path: "proxy.upstream", why: "decides where requests and their keys go" },
  { path: "proxy.routes", why: "decides where requests and their keys go" },
  { path: "proxy.upstreamKeyEnv", why: "decides which key goes upstream" },
  { path: "proxy.tokenEnv", why: "decides which token lets clients in" },
  { path: "proxy.listen", why: "decides who can reach the proxy" },
  { path: "proxy.allowedOrigins", why: "lets web pages drive the proxy" },
  { path: "proxy.textToolCalls", why: "turns text into tool calls the agent runs" },
  { path: "completionCheck.command", why: "is a shell command loopguard runs" },
  { path: "tryBest.onPause", why: "can start another agent (a hand-off)" },
  { path: "tryBest.handoffMode", why: "decides what a hand-off agent may do" },
  { path: "tools.chatShell", why: "decides whether chat runs commands without asking" },
  { path: "tools.envPass", why: "passes credentials to the commands the model runs" },
  { path: "repair.toolNameAliases", why: "changes which tool a call runs" },
  { path: "repair.tools", why: "changes the arguments a call runs with" }
]

/** The refused keys a file sets, given the paths of the values it sets (dotted, as the config names them). */
export const foundFileRefusals = (setPaths: Iterable<string>): ReadonlyArray<{ readonly refusal: FoundFileRefusal; readonly setPath: string }> => {
  const out: Array<{ refusal: FoundFileRefusal; setPath: string }> = []
  const paths = [...setPaths]
  for (const refusal of FOUND_FILE_REFUSED) {
    const hit = paths.find((p) => p === refusal.path || p.startsWith(`${refusal.path}.`))
    if (hit !== undefined) out.push({ refusal, setPath: hit })
  }
  return out
}
