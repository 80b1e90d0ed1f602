/**
 * The environment a tool command gets. The shell runs with the user's rights, so what it must
 * not see is removed here: the model API key's variable, loopguard's own `LOOPGUARD_*`
 * settings, every variable that looks like a credential — by name (`isCredentialName`, always,
 * whatever the deny-list says) or by value (a URL carrying a user and password, such as
 * `DATABASE_URL`) — and a deny-list of further names. With an allow-list only the names on it
 * pass (the rules above still apply); `pass` names the credentials the user does want passed.
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

/** Words that make a name a credential's wherever they stand in it: `PGPASSWORD`, `SESSION_SECRET_BASE`, `NPM_AUTH`, `OPENAI_APIKEY`. */
const CREDENTIAL_WORDS = /PASSW|SECRET|TOKEN|AUTH|CREDENTIAL|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY/i
/** Endings, and a `KEY` part, that do too: `DB_PASS`, `MYSQL_PWD`, `GITHUB_PAT`, `SENTRY_DSN`, `STRIPE_KEY`, `SIGNING_KEY_ID`. */
const CREDENTIAL_PARTS = /_(?:PASS|PWD|PAT|DSN|KEY)$|(?:^|_)KEY(?:_|$)/i
/**
 * Parts of names that hold those words but no credential, dropped before the test: the SSH agent's
 * socket (`SSH_AUTH_SOCK`, which git over SSH needs), an author (`GIT_AUTHOR_NAME`, `XAUTHORITY`;
 * `AUTHORIZATION` stays a credential), a tokenizer setting. `PWD` and `OLDPWD` match no rule.
 */
const NOT_CREDENTIAL_PARTS = /AUTH_SOCK$|AUTHOR(?!IZ)|TOKENIZERS?/gi

/**
 * Whether a variable's name says it holds a credential: the one rule for the shell's scrub (applied
 * whatever `tools.envDeny` says) and for the secrets the CLI redacts (`secretValues`).
 */
export const isCredentialName = (name: string): boolean => {
  const meaningful = name.replace(NOT_CREDENTIAL_PARTS, "-")
  return CREDENTIAL_WORDS.test(meaningful) || CREDENTIAL_PARTS.test(meaningful)
}

/** A value that is a URL with a password in it (`postgres://user:pw@host/db`). */
const CREDENTIAL_URL = /^\s*[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^\s@]+@/i

export interface ToolEnvOptions {
  /** Variables removed whatever the lists say (the key variable the run uses). */
  readonly secretNames?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
  /** Empty: no allow-list, every name not denied passes. */
  readonly allow?: ReadonlyArray<string>
  /** Names passed although they look like credentials (`tools.envPass`); the deny-list still applies. */
  readonly pass?: ReadonlyArray<string>
}

const globRegex = (pattern: string): RegExp =>
  new RegExp("^" + pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$", "i")

const matcher = (patterns: ReadonlyArray<string>): ((name: string) => boolean) => {
  const res = patterns.map(globRegex)
  return (name) => res.some((r) => r.test(name))
}

/** Whether a variable looks like a credential, by its name or its value, and `pass` does not name it. */
export const credentialVariables = (pass: ReadonlyArray<string> = []): ((name: string, value: string) => boolean) => {
  const passed = matcher(pass)
  return (name, value) => (isCredentialName(name) || CREDENTIAL_URL.test(value)) && !passed(name)
}

/** The environment a tool process gets: secrets, `LOOPGUARD_*`, credentials and deny-listed names removed (or only the allow-list kept). */
export const scrubEnv = (env: Readonly<Record<string, string | undefined>>, options: ToolEnvOptions = {}): Record<string, string> => {
  const secret = new Set(options.secretNames ?? [])
  const denied = matcher(options.deny ?? DEFAULT_ENV_DENY)
  const credential = credentialVariables(options.pass)
  const allowList = options.allow ?? []
  const allowed = allowList.length === 0 ? () => true : matcher(allowList)
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || secret.has(name) || /^LOOPGUARD_/i.test(name)) continue
    if (credential(name, value) || denied(name) || !allowed(name)) continue
    out[name] = value
  }
  return out
}

/**
 * The values of the variables that look like credentials (whatever `pass` says: a credential the
 * shell may use is still kept from what the model and the store see), for the run's redactor.
 */
export const credentialValues = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const credential = credentialVariables()
  return Object.entries(env).flatMap(([name, value]) => {
    if (value === undefined || value === "" || !credential(name, value)) return []
    // A URL's password also shows up on its own (a tool printing the connection it made).
    const password = CREDENTIAL_URL.exec(value)?.[0].replace(/^\s*[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:/i, "").slice(0, -1)
    return password !== undefined && password !== "" ? [value, password] : [value]
  })
}
