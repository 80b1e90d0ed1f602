/**
 * Secret redaction for text handed to another harness (or shown anywhere outside the session).
 * Two sources: values of given environment variables, and anything that looks like a key or
 * token on its own. Redaction errs on the side of removing: a false positive costs a little
 * context, a false negative leaks a credential.
 */

export const REDACTED = "[REDACTED]"

/** Variables whose values are not secret and would wreck the text if removed (paths, locale). */
export const DEFAULT_NON_SECRET_ENV: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "PWD",
  "OLDPWD",
  "SHELL",
  "USER",
  "LOGNAME",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TMPDIR",
  "HOSTNAME",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "COLORTERM",
  "TERM_PROGRAM",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_RUNTIME_DIR",
  "NODE_ENV"
]

export interface RedactOptions {
  /** Names in `env` that are left alone. Default: DEFAULT_NON_SECRET_ENV (and any LC_*). */
  readonly keepEnv?: ReadonlyArray<string>
  /** Minimum length of a run of key-like characters tested for entropy. */
  readonly entropyMinLength?: number
  /** Shannon entropy in bits per character at or above which such a run is a secret. */
  readonly entropyBits?: number
  /** Largest mean fragment length (see meanChunkLength) of a run that counts as random. */
  readonly maxMeanChunk?: number
}

export const DEFAULT_REDACT_OPTIONS = { entropyMinLength: 32, entropyBits: 3.7, maxMeanChunk: 3.5, envMinLength: 6 } as const

/** Shapes of well-known credentials; each replaced whole. */
export const TOKEN_PATTERNS: ReadonlyArray<RegExp> = [
  /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?(?:-----END \1-----|$)/g, // PEM block (an unterminated one to the end)
  /\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic style
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g, // GitLab (it may end in `-`: no word boundary after it)
  /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
  /\bxox[abposr]-[A-Za-z0-9-]{10,}(?![A-Za-z0-9-])/g, // Slack
  /\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, // Stripe
  /\bhf_[A-Za-z0-9]{30,}\b/g, // Hugging Face
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g // JWT
]

/** A literal each of TOKEN_PATTERNS' matches holds: one test of this gates the dozen passes. */
export const TOKEN_HINT = /-----BEGIN |sk-|gh[opsur]_|github_pat_|glpat-|AKIA|ASIA|AGPA|AIDA|AROA|AIza|xox[abposr]-|_live_|_test_|hf_|npm_|eyJ/

/**
 * Well-known credential formats the boundary redactor drops wherever they appear: each starts with
 * its vendor's prefix and needs a long token after it, so prose that names a prefix ("the sk-
 * prefix", "sk-learn-style") stays. A plain `sk-` key is one unbroken run with a digit in it (legacy
 * OpenAI keys, DeepSeek's); the prefixed ones (`sk-proj-`, `sk-ant-api03-` ...) carry `-` and `_`.
 */
/**
 * Where a credential may start: not inside a run of letters and digits, but right after a JSON or
 * shell escape (`\\n`, `\\u0022`) or a URL's percent escape (`%3D`), as a token quoted in an error
 * body or a query string is written.
 */
const START = String.raw`(?:(?<![A-Za-z0-9])|(?<=\\[nrtbf])|(?<=\\u[0-9A-Fa-f]{4})|(?<=%[0-9A-Fa-f]{2}))`
const startingWell = (shape: RegExp): RegExp => new RegExp(`${START}${shape.source}`, "g")

const CREDENTIAL_SHAPES: ReadonlyArray<RegExp> = [
  /-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  // These two prefixes are distinctive enough to be caught glued to a word ("xsk-proj-…", "xAKIA…").
  /sk-(?:proj|svcacct|admin|or-v\d+|ant-(?:api|admin|oat)\d*)-(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{20,}/g, // OpenAI project / service keys, OpenRouter, Anthropic
  /(?:(?<![A-Z0-9])|(?<=%[0-9A-Fa-f]{2})|(?<=\\u[0-9A-Fa-f]{4}))(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])/g, // AWS access key id (also right after a JSON `\u0022`)
  ...[
    /sk-(?=[A-Za-z]*\d)[A-Za-z0-9]{20,}\b/, // OpenAI legacy and OpenAI-compatible keys
    /(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b/, // GitHub tokens
    /github_pat_[A-Za-z0-9_]{20,}\b/,
    /glpat-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/, // GitLab (it may end in `-`: no word boundary after it)
    /AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/, // Google API key
    /xox[baprs]-(?=[A-Za-z-]*\d)[A-Za-z0-9-]{10,}(?![A-Za-z0-9-])/, // Slack
    /(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/, // Stripe secret / restricted
    /SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/, // SendGrid
    /hf_[A-Za-z0-9]{30,}\b/, // Hugging Face
    /gsk_[A-Za-z0-9]{40,}\b/, // Groq
    /xai-(?=[A-Za-z]*\d)[A-Za-z0-9]{40,}\b/, // xAI
    /ya29\.[A-Za-z0-9_-]{20,}/, // Google OAuth access token
    /npm_[A-Za-z0-9]{36}\b/,
    /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ // JWT (a signed token: header, claims, signature)
  ].map(startingWell)
]

/**
 * `scheme://user:password@host` (also with JSON-escaped slashes, `https:\\/\\/`): the user stays (it
 * says which account), the password goes. The pattern starts at the literal "://" (one that may start at any word costs ten times as much on
 * ordinary text, and this runs over every message the proxy stores).
 */
// The password runs to the authority's last `@`: `user:pa@ss@host` loses `pa@ss`, not only `pa`.
const URL_PASSWORD = /(:(?:\/\/|\\\/\\\/))([^\s:/\\@?#]*:)([^\s/\\]+)@/g

/** `x-api-key: VALUE`, `api-key=VALUE` (Azure's header, `x-goog-api-key`) as header text in logs and curl commands. */
const API_KEY_HEADER = new RegExp(String.raw`${START}((?:x-(?:goog-)?)?api-key["']?\s*[:=]\s*["']?)([^\s"',;]{8,})`, "gi")

/** `Authorization: <scheme> xyz` and `Bearer xyz`: keep the scheme, drop the credential. */
// Also right after a JSON escape (`{"message":"x\\nAuthorization: Basic …"}`): `START`, not `\b`.
const AUTH_HEADER = new RegExp(String.raw`${START}(Authorization["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Digest)\s+)?)([^\s"',;]{6,})`, "gi")
const BEARER = new RegExp(String.raw`${START}(Bearer\s+)([A-Za-z0-9._~+/=-]{8,})`, "gi")

/**
 * A Bearer value is a credential when it has a digit or a token character (`.`, `-`, `=` ...), or
 * is a run of letters longer than any word ("Bearer of bad news", "Bearer authentication" stay).
 */
const LONGEST_WORD = 19
const isBearerCredential = (value: string): boolean => /[\d._~+/=-]/.test(value) || value.length > LONGEST_WORD

/**
 * `name = value` where the name ends in a secret-ish word. Strong words (password, secret,
 * api key ...) drop any value that is not code (`self.secret`, `os.environ[...]`, `None`);
 * weak words (token, auth) are everyday words in code and prose, so their value goes only when
 * it is quoted, holds a digit, or is written shell style (`GITHUB_TOKEN=abc`).
 */
/** Names whose value is a secret unless it is code; the boundary redactor reads these only. */
const STRONG_WORDS = String.raw`api[_-]?key|apikey|secret|password|passwd|access[_-]?key|private[_-]?key|client[_-]?secret|account[_-]?key`
/** `NAME = value` / `name: "value"` where the name ends in one of `words`. */
// A name starts where a run of name characters starts (not at every `.` or `-` inside it): tried from
// every boundary, a long run such as `x.x.x.…` took time quadratic in its length.
const assignmentOf = (words: string): RegExp =>
  new RegExp(String.raw`(?<![A-Za-z0-9_.-])((?:[A-Za-z0-9_.-]*[_.-])?(${words})["']?[ \t]*(?:[:=]|[ \t](?=["']))[ \t]*)(["']?)([^\s"',;}&]{4,})\3`, "gi")
/** The words an `ASSIGNMENT` name ends in (a regular expression's alternatives). */
export const ASSIGNMENT_WORDS = `${STRONG_WORDS}|credentials?|token|auth|pwd`
const ASSIGNMENT = assignmentOf(ASSIGNMENT_WORDS)
const FLAG = /(--(?:api-?key|token|password|secret|auth-token|access-token)(?:=|\s+))(["']?)([^\s"']{4,})\2/gi

/** A word every `ASSIGNMENT` match holds: one test of this gates the pattern, whose look-behind is tried at every position. */
export const ASSIGNMENT_HINT = /api[_-]?key|apikey|secret|passw|access[_-]?key|private[_-]?key|account[_-]?key|credential|token|auth|pwd/i

/**
 * Compound token names that say what the token is for: a session's, a refresh, an API's. Unlike a
 * bare `token` or `auth`, such a name holds a credential wherever it is written.
 */
const TOKEN_NAMES = String.raw`(?:session|refresh|access|auth|security|id|api|bearer|oauth)[_-]?token`
/** Name segments that are a password on their own (`DB_PASS`, `MYSQL_PWD`, `Pwd=` in a connection string). */
const PASSWORD_SEGMENTS = new Set(["pass", "pwd"])

/**
 * The boundary redactor's share of `ASSIGNMENT`: a name with a strong word anywhere in it
 * (`password=`, `PGPASSWORD=`, `aws_secret_access_key =`, Azure's `AccountKey=`, `SECRET_KEY_BASE=`,
 * `"SecretAccessKey":`, `SessionToken`, `_authToken=`), or a name segment that is a password
 * (`DB_PASS=`, `MYSQL_PWD=`); the value is a secret unless it is code. Bare weak words (token,
 * auth) are left to the entropy-aware `redactSecrets`: in stored conversations they are everyday
 * words in code and prose.
 */
const ASSIGNED_NAME = /(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]+(?=["']?[ \t]*(?:[:=]|[ \t]+["']))/g
/** What follows such a name, read where it ends (sticky): the operator, an optional quote, the value. */
const ASSIGNED_VALUE = /(["']?[ \t]*(?:[:=]|[ \t](?=["']))[ \t]*)(["']?)([^\s"',;}&]{4,})\2/y
/** The strong words and password segments a name read by STRONG_ASSIGNMENT may hold. */
const CREDENTIAL_WORD = new RegExp(String.raw`${STRONG_WORDS}|${TOKEN_NAMES}|pass|pwd`, "gi")
const CREDENTIAL_WORD_TEST = new RegExp(CREDENTIAL_WORD.source, "i")
/** A word that may name one of them: the pass is skipped on text without one. */
const STRONG_HINT = /api[_-]?key|apikey|secret|pass|pwd|access[_-]?key|private[_-]?key|account[_-]?key|token/i

/**
 * Whether a name read by STRONG_ASSIGNMENT names a credential: the word ends the name or a part
 * of it (`SECRET_KEY`, `secretKey`, not `secretary`); a password segment stands alone in it
 * (`DB_PASS`, not `bypass` or `passes`), and `PWD` holding a path is the working directory.
 */
const namesCredential = (prefix: string, word: string, rest: string, value: string): boolean => {
  if (rest !== "" && !/^[_.\-0-9A-Z]/.test(rest)) return false
  if (!PASSWORD_SEGMENTS.has(word.toLowerCase())) return true
  return rest === "" && (prefix === "" || /[_.-]$/.test(prefix)) && !/^[/~]/.test(value)
}

// An unquoted plain word without a digit is a variable (`"api-key": apiKey`, `password: password`), not a value.
const VARIABLE = /^[A-Za-z_$][A-Za-z_$]*$/

/**
 * A credential in a URL's query (`?key=…` as Google's REST examples pass it, `&access_token=…`,
 * a signed URL's `sig=`): the name stays, the value goes.
 */
const QUERY_CREDENTIAL = /([?&](?:key|api[_-]?key|apikey|access[_-]?token|token|auth|sig|signature|password|secret)=)([^&\s#"'<>\\]{6,})/gi
const QUERY_HINT = /[?&](?:key|api|access|token|auth|sig|password|secret)/i

/**
 * A `Cookie:` / `Set-Cookie:` header's value (`name=value` pairs) to the end of its line, a JSON escape
 * or a closing quote. Without a `=` it is no header: "the cookie: a small biscuit" is prose.
 */
const COOKIE_HEADER = new RegExp(String.raw`${START}((?:set-)?cookie["']?[ \t]*:[ \t]*)((?:(?!\\[nr])[^\r\n"'])*?=(?:(?!\\[nr])[^\r\n"'])+)`, "gi")

const redactQueryAndCookies = (text: string): string => {
  let out = QUERY_HINT.test(text) ? text.replace(QUERY_CREDENTIAL, (m, head: string, value: string) => (value.startsWith("[REDACTED") ? m : `${head}${REDACTED}`)) : text
  if (/cookie/i.test(out)) out = out.replace(COOKIE_HEADER, (m, head: string, value: string) => (value.trim() === "" || value.startsWith("[REDACTED") ? m : `${head}${REDACTED}`))
  return out
}

/** The strong word in `name` that makes it a credential's name (`namesCredential`), or null. */
const credentialWordIn = (name: string, value: string): string | null => {
  for (const m of name.matchAll(CREDENTIAL_WORD)) {
    const at = m.index!
    if (namesCredential(name.slice(0, at), m[0], name.slice(at + m[0].length), value)) return m[0]
  }
  return null
}

/**
 * Each name followed by an assignment is found once (a name never starts inside another), and only a
 * credential's name has its value read: the text is read in one pass, however long its runs of name
 * characters (`x.x.x.…`, which a pattern trying every boundary read in quadratic time).
 */
const redactStrongAssignments = (text: string): string => {
  if (!STRONG_HINT.test(text)) return text
  let out = ""
  let last = 0
  for (const m of text.matchAll(ASSIGNED_NAME)) {
    const name = m[0]
    const end = m.index! + name.length
    if (m.index! < last || name.length > 200 || !CREDENTIAL_WORD_TEST.test(name)) continue
    ASSIGNED_VALUE.lastIndex = end
    const v = ASSIGNED_VALUE.exec(text)
    if (v === null) continue
    const [, operator, quote, value] = v as unknown as [string, string, string, string]
    const word = credentialWordIn(name, value)
    if (word === null || (quote === "" && VARIABLE.test(value))) continue
    out += text.slice(last, m.index) + assignmentValue(name + v[0], name + operator, word, quote, value)
    last = end + v[0].length
  }
  return last === 0 ? text : out + text.slice(last)
}
const WEAK_WORDS = new Set(["token", "auth", "pwd"])
const CODE_VALUE = /^(?:[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::)[A-Za-z_$][\w$]*)+.*|[A-Za-z_$][\w$]*\(.*|\$\{?\w+\}?|null|none|nil|true|false|undefined|os\.environ.*|process\.env.*)$/i

const assignmentValue = (m: string, name: string, word: string, quote: string, value: string): string => {
  if (value.startsWith("[REDACTED")) return m
  if (quote === "" && CODE_VALUE.test(value)) return m
  const weak = WEAK_WORDS.has(word.toLowerCase())
  // `NAME=value` / `name:value` with nothing in between is config or shell, not prose.
  const compact = /[=:]$/.test(name)
  const secret = quote !== "" || /\d/.test(value) || compact || !weak
  return secret ? `${name}${quote}${REDACTED}${quote}` : m
}

type RandomTest = Required<Pick<RedactOptions, "entropyMinLength" | "entropyBits" | "maxMeanChunk">>

const KEY_LIKE_CHARS = "[A-Za-z0-9+/_=-]"
const KEY_LIKE_RUN = new RegExp(`${KEY_LIKE_CHARS}+`, "g")
const keyLikeByLength = new Map<number, RegExp>()

/**
 * The runs of key-like characters that `redactRun` can change: one shorter than the entropy test's
 * minimum (and every segment of it) is never random, so those are not even matched (every word of a
 * long tool output was, each one a call). A match starts only where a run starts: tried from inside
 * a short run, the count would read on to its end at every position.
 */
const keyLikeRuns = (minLength: number): RegExp => {
  if (!Number.isInteger(minLength) || minLength < 2 || minLength > 4096) return KEY_LIKE_RUN
  let pattern = keyLikeByLength.get(minLength)
  if (pattern === undefined) keyLikeByLength.set(minLength, (pattern = new RegExp(`(?<!${KEY_LIKE_CHARS})${KEY_LIKE_CHARS}{${minLength},}`, "g")))
  return pattern
}

/** Shannon entropy of a string in bits per character (high for keys and tokens). */
export const shannonEntropy = (text: string): number => {
  if (text.length === 0) return 0
  const counts = new Map<string, number>()
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) {
    const p = n / text.length
    bits -= p * Math.log2(p)
  }
  return bits
}

/** Mean length of the "words" of a run: camelCase humps, lowercase runs, digit runs. */
const meanChunkLength = (run: string): number => {
  const chunks = run.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g) ?? []
  return chunks.length === 0 ? 0 : chunks.reduce((n, c) => n + c.length, 0) / chunks.length
}

/**
 * Random-looking: long, letters and digits mixed, high entropy, and made of short fragments.
 * Identifiers and paths are made of words (`TestDecoratorsAndFuzz32208Test` has a mean chunk
 * length above 4), random keys switch character class every one or two characters. Pure hex
 * (commit hashes, checksums) and UUIDs stay: they are rarely credentials and often needed.
 */
const looksRandom = (run: string, o: RandomTest): boolean =>
  run.length >= o.entropyMinLength &&
  /[A-Za-z]/.test(run) &&
  /\d/.test(run) &&
  !/^[0-9a-f-]+$/i.test(run) &&
  meanChunkLength(run) <= o.maxMeanChunk &&
  shannonEntropy(run) >= o.entropyBits

/**
 * A run of key-like characters. A path or URL (mostly word-like segments: words, numbers, hex
 * hashes, at least two plain words) is tested segment by segment, so a commit hash in a URL
 * does not make the URL look random; any other run is tested whole, then per segment.
 */
const redactRun = (run: string, o: RandomTest): string => {
  const segments = run.split("/")
  const perSegment = (): string => segments.map((seg) => (looksRandom(seg, o) ? REDACTED : seg)).join("/")
  if (segments.length === 1) return looksRandom(run, o) ? REDACTED : run
  const wordy = segments.filter(
    (seg) => /^[A-Za-z_-]*$/.test(seg) || /^[0-9a-f-]+$/i.test(seg) || meanChunkLength(seg) > o.maxMeanChunk
  ).length
  const words = segments.filter((seg) => /^[A-Za-z][A-Za-z_-]{2,}$/.test(seg)).length
  if (wordy * 2 >= segments.length && words >= 2) return perSegment()
  return looksRandom(run, o) ? REDACTED : perSegment()
}

/** Shortest configured secret value that is removed verbatim (shorter ones would wreck ordinary text). */
export const MIN_SECRET_LENGTH = 6

const replaceValues = (text: string, values: ReadonlyArray<string>): string => {
  let out = text
  for (const value of values) if (out.includes(value)) out = out.split(value).join(REDACTED)
  return out
}

const keepName = (m: string, head: string, value: string): string => (value.startsWith("[REDACTED") ? m : `${head}${REDACTED}`)

/**
 * `curl -u user:password` / `--user user:password` (curl, wget's `--http-user`, `--proxy-user`,
 * `-U`, httpie's `--auth`; a short flag may end a cluster, `-fsSLu`, or hold its value glued,
 * `-ualice:pw`): the user stays, the password goes. A password of digits alone is a group id
 * (`docker run -u 1000:1000`), one starting with `$` a variable and one starting with `/` or `~`
 * a path (`host:/dir`): they stay. The quote may be a JSON-escaped one (`\\"`).
 */
const USER_FLAG = /((?:^|[\s"'`(])(?:(?:-[A-Za-z]*u|-U)(?:[ \t]+|=)?|(?:--user|--http-user|--proxy-user|--auth)(?:[ \t]+|=))(\\?["']?)[^\s:"'$\\]*:)([^\s"']+)\2/g
const USER_FLAG_HINT = /(?:^|[\s"'`(])(?:-[A-Za-z]*[uU]|--user|--http-user|--proxy-user|--auth)/

const redactUserFlag = (text: string): string =>
  USER_FLAG_HINT.test(text) ? text.replace(USER_FLAG, (m, head: string, quote: string, password: string) => (/^\d+$|^[$/~]|^\[REDACTED/.test(password) ? m : `${head}${REDACTED}${quote}`)) : text

/**
 * A credential given to a command or written in a file's own syntax, with a hint that gates the
 * pattern: `--password VALUE` (a space, not `=`; `--http-password` too), `sshpass -p VALUE`,
 * `docker login -p VALUE`, httpie's `http -a user:VALUE`, `mysql -pVALUE`, a `.netrc`
 * line, a Docker config's `"auth": "<base64>"`, Azure's subscription key header, a Slack webhook.
 * Each keeps its head and drops the value. A flag is looked for within 200 characters of its
 * command, so a long line full of command names costs one pass, not one per name.
 */
const CREDENTIAL_PHRASES: ReadonlyArray<readonly [hint: RegExp, pattern: RegExp]> = [
  [/-(?:password|passwd|secret|api-?key|auth-token|access-token)[ \t]/i, /(--(?:[a-z]+-)?(?:password|passwd|secret|api-?key|auth-token|access-token)[ \t]+)(["']?)([^\s"'$-][^\s"']{3,})\2/gi],
  [/sshpass/, /(\bsshpass[ \t]+-p[ \t]*)(["']?)([^\s"'$-][^\s"']*)\2/g],
  [/docker/, /(\bdocker[ \t]+login\b[^\n|;&]{0,200}?[ \t]-p[ \t]+)(["']?)([^\s"'$-][^\s"']*)\2/g],
  [/http/, /(\bhttps?(?:[ \t][^\n|;&]{0,200}?)?[ \t]-a[ \t]+[^\s:"'$]*:)()([^\s"'$/~][^\s"']*)/g],
  [/mysql|mariadb/, /(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb)\b[^\n|;&]{0,200}?[ \t]-p)(["']?)([^\s"'$-][^\s"']*)\2/g],
  [/machine/, /(\bmachine[ \t]+\S+[ \t]+(?:login[ \t]+\S+[ \t]+)?password[ \t]+)()(\S+)/g],
  [/"auth"/, /("auth"[ \t]*:[ \t]*)(")([A-Za-z0-9+/]{8,}={0,2})\2/g],
  [/subscription-key/i, /(ocp-apim-subscription-key["']?[ \t]*[:=][ \t]*)(["']?)([^\s"',;]{8,})\2/gi],
  [/hooks\.slack/, /(hooks\.slack\.com\/services\/[A-Z0-9]+\/[A-Z0-9]+\/)()([A-Za-z0-9]{16,})/g],
  // HTTP Digest auth: the `response=` hash proves the password for its nonce (read on its own: in a
  // stream the `Digest` scheme may have been let out words before it).
  [/response/i, /(\bresponse[ \t]*=[ \t]*)("?)([0-9A-Fa-f]{32,128})\2/gi]
]

const redactCredentialPhrases = (text: string): string => {
  let out = text
  for (const [hint, pattern] of CREDENTIAL_PHRASES) {
    if (hint.test(out)) out = out.replace(pattern, (m, head: string, quote: string, value: string) => (value.startsWith("[REDACTED") ? m : `${head}${quote}${REDACTED}${quote}`))
  }
  return out
}

// Each header pattern only where its name is in the text: their look-behinds are tried at every
// position, which on a long tool output cost more than all the other passes.
const redactAuthorization = (text: string): string => {
  let out = redactCredentialPhrases(redactUserFlag(text))
  if (/authorization/i.test(text)) out = out.replace(AUTH_HEADER, keepName)
  if (/api-key/i.test(text)) out = out.replace(API_KEY_HEADER, (m, head: string, value: string) => (CODE_VALUE.test(value) || !/\d/.test(value) ? m : keepName(m, head, value)))
  if (/bearer/i.test(text)) out = out.replace(BEARER, (m, head: string, value: string) => (value.startsWith("[REDACTED") || !isBearerCredential(value) ? m : `${head}${REDACTED}`))
  return out
}

/**
 * Some vendor prefix of CREDENTIAL_SHAPES: one test of this gates the dozen passes, which on the
 * short strings a stored message is made of cost ten times the test.
 */
const CREDENTIAL_HINT = /sk-|gh[pousr]_|github_pat_|glpat-|AKIA|ASIA|AIza|xox[baprs]-|_live_|_test_|SG\.|hf_|gsk_|xai-|ya29\.|npm_|eyJ|PRIVATE KEY/

/** Well-known credential formats and the password of a URL, wherever they appear. */
const redactCredentialShapes = (text: string): string => {
  let out = text
  if (CREDENTIAL_HINT.test(out)) for (const shape of CREDENTIAL_SHAPES) out = out.replace(shape, REDACTED)
  if (!out.includes("://") && !out.includes(":\\/\\/")) return out
  return out.replace(URL_PASSWORD, (m, slashes: string, user: string, password: string) => (password.startsWith("[REDACTED") ? m : `${slashes}${user}${REDACTED}@`))
}

/**
 * The boundary redactor: every string that leaves loopguard (events, reports, `--json`, stored
 * sessions, error messages, tool results sent to the model) goes through one of these. It
 * removes the configured secret values (the API key) wherever they appear, well-known credential
 * formats (sk-…, sk-ant-…, AKIA…, ghp_…, xoxb-…, AIza…, private-key PEM blocks, signed JWTs; also right after a JSON or URL escape), a URL's password,
 * and the credential after `Authorization:`, `Bearer`, `x-api-key:` / `api-key:`. Unlike
 * redactSecrets it has no entropy heuristics, so ordinary text (code, hashes, ids) passes
 * unchanged. Never throws.
 */
export const makeRedactor = (
  secrets: ReadonlyArray<string | undefined> = [],
  options: {
    /**
     * Also drop Authorization/Bearer/api-key credentials and well-known credential formats
     * (default true). Off for text that is code to run: only the configured values go.
     */
    readonly authorization?: boolean
  } = {}
): ((text: string) => string) => {
  const values = [...new Set(secrets.filter((v): v is string => typeof v === "string" && v.length >= MIN_SECRET_LENGTH))]
    // Longest first, so a value that contains another is removed whole.
    .sort((a, b) => b.length - a.length)
  if (options.authorization === false) return (text) => (typeof text === "string" ? replaceValues(text, values) : text)
  const redact = (text: string): string => redactQueryAndCookies(redactStrongAssignments(redactAuthorization(redactCredentialShapes(replaceValues(text, values)))))
  return (text) => {
    if (typeof text !== "string") return text
    const out = redact(text)
    return text.includes(ESCAPED_QUOTE) ? withEscapedQuotesRead(text, out, redact) : out
  }
}

const ESCAPED_QUOTE = '\\"'
/** Shortest span taken from the unescaped reading for a secret (shorter ones would wreck words). */
const MIN_ESCAPED_SECRET = 4

/**
 * JSON written inside a JSON string (`{"config":"{\\"password\\": \\"…\\"}"}`, a manifest kept in an
 * annotation) escapes the quotes the patterns read: `text` is read once more with them unescaped, and
 * what that reading removes is removed from `redacted` (text's own redaction), escaped or not.
 */
const withEscapedQuotesRead = (text: string, redacted: string, redact: (text: string) => string): string => {
  const plain = text.split(ESCAPED_QUOTE).join('"')
  let out = redacted
  for (const value of removedSpans(plain, redact(plain))) out = out.split(value.split('"').join(ESCAPED_QUOTE)).join(REDACTED).split(value).join(REDACTED)
  return out
}

/**
 * The spans of `before` that `after` (the same text with spans replaced by REDACTED) replaced, as far as
 * they can be told; a guess that is wrong removes more, never less.
 */
const removedSpans = (before: string, after: string): Array<string> => {
  const pieces = after.split(REDACTED)
  if (pieces.length === 1 || !before.startsWith(pieces[0]!)) return []
  const spans: Array<string> = []
  let at = pieces[0]!.length
  for (const piece of pieces.slice(1)) {
    const next = piece === "" ? at : before.indexOf(piece, at + 1)
    if (next === -1) break
    const span = before.slice(at, next)
    if (span.length >= MIN_ESCAPED_SECRET && span !== REDACTED) spans.push(span)
    at = next + piece.length
  }
  return [...new Set(spans)].sort((a, b) => b.length - a.length)
}

/** Redacts secret values from text that arrives in pieces (a model's text deltas). */
export interface StreamRedactor {
  /** The part of the text so far that can be let out; a possible start of a secret is held back. */
  readonly push: (chunk: string) => string
  /** Whatever is still held back (call at the end of the text). */
  readonly flush: () => string
}

/**
 * A secret split over two deltas is still caught: a tail that could be the start of a secret
 * is held back until the next piece shows whether it is one. Values only: Authorization/Bearer
 * patterns are caught on whole texts (stored messages, reports) by makeRedactor.
 */
export const makeStreamRedactor = (secrets: ReadonlyArray<string | undefined> = []): StreamRedactor => {
  const values = [...new Set(secrets.filter((v): v is string => typeof v === "string" && v.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length
  )
  if (values.length === 0) return { push: (chunk) => chunk, flush: () => "" }
  let pending = ""
  const heldBack = (text: string): number => {
    let hold = 0
    for (const value of values) {
      for (let k = Math.min(value.length - 1, text.length); k > hold; k--) {
        if (text.endsWith(value.slice(0, k))) {
          hold = k
          break
        }
      }
    }
    return hold
  }
  return {
    push: (chunk) => {
      pending = replaceValues(pending + chunk, values)
      const cut = pending.length - heldBack(pending)
      const out = pending.slice(0, cut)
      pending = pending.slice(cut)
      return out
    },
    flush: () => {
      const out = pending
      pending = ""
      return out
    }
  }
}

/** A word that starts a pattern the next words complete (`Authorization: Bearer TOKEN`, `x-api-key: VALUE`, `-u user:password`). */
const PATTERN_HEAD = new RegExp(
  String.raw`(?:(?:authorization|bearer|basic|digest|token|cookie|auth|subscription-key|${STRONG_WORDS}|${TOKEN_NAMES}|pass|pwd)[A-Za-z0-9_.-]*["']?[:=]?["']?|^(?:-[A-Za-z]*u|-U|--user|--http-user|--proxy-user|--auth|-a|--(?:[a-z]+-)?(?:password|passwd|secret|api-?key|auth-token|access-token)|sshpass|-p|machine))$`,
  "i"
)
/**
 * A command whose password may come many words after its name (`mysql -h db -u root -pVALUE`,
 * `docker login -u me -p VALUE`, httpie's `http GET url -a me:VALUE`, a `.netrc` line): held to the
 * end of its line.
 */
const LINE_HOLD_MOST = 512
const LINE_HEAD = /(?:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|sshpass|docker|machine)\b|(?:^|[\s;&|(])https?(?=[ \t]|$))(?=[^\n]*$)/
/** Complete words read after a head: the scheme and the value. */
const WORDS_AFTER_HEAD = 2

/** Where the word before `at` starts (the whitespace before `at` skipped). */
const wordStartBefore = (text: string, at: number): number => {
  let i = at
  while (i > 0 && /\s/.test(text[i - 1]!)) i--
  while (i > 0 && !/\s/.test(text[i - 1]!)) i--
  return i
}

/**
 * Where held-back text starts: at the word still arriving (any may be the start of a token), at a
 * pattern's head among the complete words before it, or at an open private-key block.
 */
const heldFrom = (text: string): number => {
  let at = /\s$/.test(text) ? text.length : wordStartBefore(text, text.length)
  let word = at
  for (let i = 0; i < WORDS_AFTER_HEAD && word > 0; i++) {
    const start = wordStartBefore(text, word)
    if (PATTERN_HEAD.test(text.slice(start, word).trimEnd())) at = start
    word = start
  }
  // Held no further than a phrase reaches (200 characters past its command): a long line is let out.
  const line = LINE_HEAD.exec(text.slice(-LINE_HOLD_MOST))
  if (line !== null) at = Math.min(at, text.length - Math.min(text.length, LINE_HOLD_MOST) + line.index)
  const begin = text.lastIndexOf("-----BEGIN")
  return begin !== -1 && !/-----END [A-Z ]*-----/.test(text.slice(begin)) ? Math.min(at, begin) : at
}

/**
 * Text that arrives in pieces (a model's reply shown as it streams), redacted as makeRedactor
 * redacts whole text, split tokens included: the word still arriving is held back until more text
 * shows where it ends, a header's name (`Authorization:`, `Bearer`) until its value is whole, a
 * private-key block until its END line, and any word a pattern reads together with the held ones.
 */
export const makeShapeStreamRedactor = (secrets: ReadonlyArray<string | undefined> = []): StreamRedactor => {
  const redact = makeRedactor(secrets)
  let pending = ""
  return {
    push: (chunk) => {
      pending += chunk
      const whole = redact(pending)
      let cut = heldFrom(pending)
      let head = redact(pending.slice(0, cut))
      // Released only where the redaction reads the same cut there: no match runs across the cut.
      while (cut > 0 && whole !== head + redact(pending.slice(cut))) {
        cut = wordStartBefore(pending, cut)
        head = redact(pending.slice(0, cut))
      }
      pending = pending.slice(cut)
      return cut === 0 ? "" : head
    },
    flush: () => {
      const out = redact(pending)
      pending = ""
      return out
    }
  }
}

/** `value` with every string inside (object keys kept) passed through `redact`; cycles are cut. */
export const redactDeep = <A>(value: A, redact: (text: string) => string): A => {
  const seen = new WeakMap<object, unknown>()
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redact(v)
    if (v === null || typeof v !== "object") return v
    if (seen.has(v)) return seen.get(v)
    if (Array.isArray(v)) {
      const out: Array<unknown> = []
      seen.set(v, out)
      for (const item of v) out.push(walk(item))
      return out
    }
    if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null && !(v instanceof Error)) return v
    const out: Record<string, unknown> = {}
    seen.set(v, out)
    for (const [k, item] of Object.entries(v)) out[k] = walk(item)
    if (v instanceof Error && out["message"] === undefined) out["message"] = redact(v.message)
    return out
  }
  return walk(value) as A
}

/** The values of `env` that `redactSecrets` hides, longest first (so a value that contains another is removed whole). */
const envSecrets = (env: Readonly<Record<string, string | undefined>>, options: RedactOptions): ReadonlyArray<string> => {
  const keep = new Set(options.keepEnv ?? DEFAULT_NON_SECRET_ENV)
  const isKept = (name: string): boolean => keep.has(name) || (options.keepEnv === undefined && name.startsWith("LC_"))
  return Object.entries(env)
    .filter(([name, v]) => typeof v === "string" && v.length >= DEFAULT_REDACT_OPTIONS.envMinLength && !isKept(name))
    .map(([, v]) => v as string)
    .sort((a, b) => b.length - a.length)
}

/** The entropy test's settings from `options`, defaults filled in. */
const randomTestOf = (options: RedactOptions): RandomTest => ({
  entropyMinLength: options.entropyMinLength ?? DEFAULT_REDACT_OPTIONS.entropyMinLength,
  entropyBits: options.entropyBits ?? DEFAULT_REDACT_OPTIONS.entropyBits,
  maxMeanChunk: options.maxMeanChunk ?? DEFAULT_REDACT_OPTIONS.maxMeanChunk
})

/** `api_key=`-style assignments, `--token` flags and long random-looking runs: the guesses only `redactSecrets` makes. */
const redactGuesses = (text: string, random: RandomTest): string => {
  let out = ASSIGNMENT_HINT.test(text) ? text.replace(ASSIGNMENT, assignmentValue) : text
  if (out.includes("--")) {
    out = out.replace(FLAG, (m, name: string, quote: string, value: string) =>
      value.startsWith("[REDACTED") ? m : `${name}${quote}${REDACTED}${quote}`
    )
  }
  return out.replace(keyLikeRuns(random.entropyMinLength), (run) => redactRun(run, random))
}

const redactTokenPatterns = (text: string): string => {
  let out = text
  if (TOKEN_HINT.test(out)) for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED)
  return out
}

/**
 * Remove secrets from `text`: values of `env` (6 characters or longer; well-known non-secret
 * variables excepted), PEM blocks, known token shapes (sk-…, ghp_…, AKIA…, JWTs …), the
 * credential after `Authorization:`/`Bearer`, values of `api_key=`-style assignments and
 * `--token` flags, and long random-looking strings. Heuristic by nature; never throws.
 */
export const redactSecrets = (
  text: string,
  env?: Readonly<Record<string, string | undefined>>,
  options: RedactOptions = {}
): string => {
  const out = redactTokenPatterns(env === undefined ? text : replaceValues(text, envSecrets(env, options)))
  return redactGuesses(redactStrongAssignments(redactAuthorization(redactCredentialShapes(out))), randomTestOf(options))
}
