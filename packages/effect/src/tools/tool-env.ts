/**
 * The environment a tool command gets. The shell runs with the user's rights, so what it must
 * not see is removed here: the model API key's variable, loopguard's own `LOOPGUARD_*`
 * settings, and a deny-list of names that usually hold credentials. With an allow-list only
 * the names on it pass (the deny-list still applies).
 */

/** Names (`*` matches any run of characters, case-insensitive) that usually hold credentials. */
export const DEFAULT_ENV_DENY: ReadonlyArray<string> = [
  "*_API_KEY",
  "*_APIKEY",
  "*_TOKEN",
  "*_SECRET",
  "*_SECRET_*",
  "*_PASSWORD",
  "*_ACCESS_KEY*",
  "*_PRIVATE_KEY",
  "*_CREDENTIALS",
  "AWS_*",
  "OPENAI_*",
  "ANTHROPIC_*",
  "NPM_CONFIG__AUTH*"
]

export interface ToolEnvOptions {
  /** Variables removed whatever the lists say (the key variable the run uses). */
  readonly secretNames?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
  /** Empty: no allow-list, every name not denied passes. */
  readonly allow?: ReadonlyArray<string>
}

const globRegex = (pattern: string): RegExp =>
  new RegExp("^" + pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$", "i")

const matcher = (patterns: ReadonlyArray<string>): ((name: string) => boolean) => {
  const res = patterns.map(globRegex)
  return (name) => res.some((r) => r.test(name))
}

/** The environment a tool process gets: secrets, `LOOPGUARD_*` and deny-listed names removed (or only the allow-list kept). */
export const scrubEnv = (env: Readonly<Record<string, string | undefined>>, options: ToolEnvOptions = {}): Record<string, string> => {
  const secret = new Set(options.secretNames ?? [])
  const denied = matcher(options.deny ?? DEFAULT_ENV_DENY)
  const allowList = options.allow ?? []
  const allowed = allowList.length === 0 ? () => true : matcher(allowList)
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || secret.has(name) || /^LOOPGUARD_/i.test(name)) continue
    if (denied(name) || !allowed(name)) continue
    out[name] = value
  }
  return out
}
