/**
 * Config loading: defaults ← config file (JSON/JSONC) ← LOOPGUARD_* environment variables ←
 * explicit overrides (CLI flags), then one Schema decode. Errors name the field and where
 * the bad value came from (file:line, env var, flag).
 */
import { Schema } from "effect"
// The package root, not `jsonc-parser/lib/esm/…`: Node loads that path as CommonJS and rejects it. The
// CLI bundle maps the root back to the ESM build (scripts/build.ts).
import { renameSnakeCaseKeys, renameSnakeCasePath, type RenamedKey } from "@loopguard/core/settings"
import { findNodeAtLocation, parse as parseJsonc, parseTree, printParseErrorCode, type ParseError } from "jsonc-parser"
import { DEFAULT_CONFIG } from "./defaults.js"
import { configIssues, fieldName } from "./issues.js"
import { duplicateKeys, forbiddenKeys, MAX_CONFIG_DEPTH, stripBom, tooDeepAt } from "./file-guards.js"
import { foundFileRefusals } from "./found-file.js"
import { BUDGET_NAMES, LoopguardConfigSchema, RetryBudgetPatch, RetrySection, type LoopguardConfig } from "./schema.js"

export type ConfigSource =
  | { readonly kind: "default" }
  /** `written`: the key path as the file spells it (an old snake_case name), where it differs. */
  | { readonly kind: "file"; readonly file: string; readonly written?: ReadonlyArray<string> }
  | { readonly kind: "env"; readonly name: string } | { readonly kind: "flag"; readonly name: string }

export interface ConfigInput {
  /**
   * Contents of a config file, with its path for error messages. `found`: the file was found in the
   * working directory, not named by the user, and may not set the keys of `FOUND_FILE_REFUSED`.
   */
  readonly file?: { readonly path: string; readonly text: string; readonly found?: boolean }
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Values by dotted path, winning over file and env, e.g. from CLI flags: `[{ path: "repeat.window", value: 300, flag: "--window" }]`; an error names `flag`, else the path. */
  readonly overrides?: ReadonlyArray<{ readonly path: string; readonly value: unknown; readonly flag?: string }>
}

export type ConfigResult =
  /** `warnings`: one line per deprecated key used (accepted for one release), naming where it is written. */
  | { readonly _tag: "ok"; readonly config: LoopguardConfig; readonly warnings: ReadonlyArray<string> }
  | { readonly _tag: "error"; readonly errors: ReadonlyArray<string> }

const upperSnake = (key: string): string => key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()

/** Every environment variable loopguard reads, with the config path it sets. */
export const envVariables = (): ReadonlyArray<{ readonly name: string; readonly path: ReadonlyArray<string> }> => {
  const out: Array<{ name: string; path: Array<string> }> = []
  const walk = (obj: Record<string, unknown>, path: Array<string>) => {
    for (const [k, v] of Object.entries(obj)) {
      if (path.length === 0 && (k === "retry" || k === "provider")) continue
      if (v !== null && typeof v === "object" && !Array.isArray(v)) walk(v as Record<string, unknown>, [...path, k])
      else out.push({ name: "LOOPGUARD_" + [...path, k].map(upperSnake).join("_"), path: [...path, k] })
    }
  }
  walk(DEFAULT_CONFIG as unknown as Record<string, unknown>, [])
  // `retry` has no defaults to walk (every field is a patch): its keys come from the schema.
  const budgets: ReadonlyArray<string> = BUDGET_NAMES
  for (const key of Object.keys(RetrySection.fields)) {
    const fields = budgets.includes(key) ? Object.keys(RetryBudgetPatch.fields).map((field) => [key, field]) : [[key]]
    for (const rest of fields) out.push({ name: "LOOPGUARD_" + ["retry", ...rest].map(upperSnake).join("_"), path: ["retry", ...rest] })
  }
  return out
}

/** Knobs with no default value whose environment text still needs a shape (a list of numbers). */
const ENV_SHAPES: Readonly<Record<string, unknown>> = { "retry.retryableStatuses": [0] }

/** Env values are text: numbers, booleans, `null`, and comma lists for list-valued knobs. */
const parseEnvValue = (raw: string, defaultValue: unknown): unknown => {
  const t = raw.trim()
  if (Array.isArray(defaultValue)) {
    const items = t === "" ? [] : t.split(",").map((s) => s.trim()).filter((s) => s !== "")
    // A list of numbers (HTTP statuses) reads its items as numbers; a bad item is left as text for the Schema to name.
    return typeof defaultValue[0] === "number" ? items.map((x) => (/^\d+$/.test(x) ? Number(x) : x)) : items
  }
  if (t === "null") return null
  // Switches also take the spellings shells use: 1/0, yes/no, on/off (`LOOPGUARD_TRY_BEST_ENABLED=1` turns Try-Best on).
  if (typeof defaultValue === "boolean") {
    const lower = t.toLowerCase()
    if (["true", "1", "yes", "on"].includes(lower)) return true
    if (["false", "0", "no", "off"].includes(lower)) return false
  }
  if (t === "true") return true
  if (t === "false") return false
  if (t !== "" && /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(t)) return Number(t)
  return t
}

const getPath = (obj: unknown, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((o, k) => (o !== null && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj)

const setPath = (obj: Record<string, unknown>, path: ReadonlyArray<string>, value: unknown): void => {
  let cur = obj
  for (const k of path.slice(0, -1)) {
    const next = cur[k]
    if (next === null || typeof next !== "object" || Array.isArray(next)) cur[k] = {}
    cur = cur[k] as Record<string, unknown>
  }
  cur[path[path.length - 1]!] = value
}

/** Deep merge where objects merge key by key (so `provider.x.retry.server.maxRetries` alone works). */
const mergeInto = (target: Record<string, unknown>, patch: Record<string, unknown>): void => {
  for (const [k, v] of Object.entries(patch)) {
    const cur = target[k]
    if (v !== null && typeof v === "object" && !Array.isArray(v) && cur !== null && typeof cur === "object" && !Array.isArray(cur)) {
      mergeInto(cur as Record<string, unknown>, v as Record<string, unknown>)
    } else target[k] = v
  }
}

const lineOf = (text: string, offset: number): { line: number; column: number } => {
  let line = 1
  let last = -1
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) ((line += 1), (last = i))
  return { line, column: offset - last }
}

/** Line of the value at `path` in the file (or of its nearest enclosing value), so a bad value points at file:line. */
const findKeyLine = (text: string, path: ReadonlyArray<string>): number | null => {
  const tree = parseTree(text, [], { allowTrailingComma: true })
  if (tree === undefined) return null
  for (let n = path.length; n > 0; n--) {
    const node = findNodeAtLocation(tree, path.slice(0, n).map((p) => (/^\d+$/.test(p) ? Number(p) : p)))
    // A property's value: point at its key, where a reader looks for it.
    if (node !== undefined) return lineOf(text, node.parent?.type === "property" ? node.parent.offset : node.offset).line
  }
  return null
}

/**
 * Where the value at `path` came from: its own source, else its enclosing value's (a list item's
 * list), else the first value set inside it (a check across a section's fields).
 */
const sourceOf = (sources: ReadonlyMap<string, ConfigSource>, path: ReadonlyArray<string>): ConfigSource | undefined => {
  for (let n = path.length; n > 0; n--) {
    const own = sources.get(path.slice(0, n).join("."))
    if (own !== undefined) return own
  }
  const prefix = path.join(".") + "."
  for (const [key, src] of sources) if (key.startsWith(prefix)) return src
  return undefined
}

const describeSource = (src: ConfigSource | undefined, input: ConfigInput, path: ReadonlyArray<string>): string => {
  if (src === undefined || src.kind === "default") return "default"
  if (src.kind === "env") return `environment variable ${src.name}`
  if (src.kind === "flag") return `flag ${src.name}`
  const line = input.file ? findKeyLine(input.file.text, src.written ?? path) : null
  return line === null ? src.file : `${src.file}:${line}`
}

/** Each value the file sets, by its path in the config (old snake_case keys renamed), with the path as written. */
const markFileSources = (sources: Map<string, ConfigSource>, parsed: unknown, file: string): void => {
  const mark = (obj: unknown, written: ReadonlyArray<string>) => {
    if (obj !== null && typeof obj === "object" && !Array.isArray(obj)) {
      for (const [k, v] of Object.entries(obj)) mark(v, [...written, k])
      return
    }
    const path = renameSnakeCasePath(written, DEFAULT_CONFIG)
    sources.set(path.join("."), path.join(".") === written.join(".") ? { kind: "file", file } : { kind: "file", file, written })
  }
  mark(parsed, [])
}

/** One line per old key: where it is written, its new name, and that the old one goes in the next release. */
const renamedKeyWarning = (r: RenamedKey, where: string): string =>
  `${where}: config key ${r.from.join(".")} is deprecated, use ${r.to.join(".")} (the snake_case name is accepted for one release)` +
  (r.ignored ? `; ignored, since ${r.to.join(".")} is set too` : "")

/** Defaults ← file ← env ← overrides, validated; `ok` with the config or `error` with one message per bad field. */
export const loadConfig = (input: ConfigInput): ConfigResult => {
  const merged = structuredClone(DEFAULT_CONFIG) as unknown as Record<string, unknown>
  const sources = new Map<string, ConfigSource>()
  const errors: Array<string> = []
  const warnings: Array<string> = []

  if (input.file) {
    const read = readConfigFile(input.file)
    if (read._tag === "error") return read
    const { value, renamed } = renameSnakeCaseKeys(read.parsed, DEFAULT_CONFIG)
    mergeInto(merged, value as Record<string, unknown>)
    markFileSources(sources, read.parsed, input.file.path)
    if (input.file.found === true) errors.push(...foundFileErrors(sources, input))
    warnings.push(...renamed.map((r) => renamedKeyWarning(r, `${input.file!.path}:${findKeyLine(input.file!.text, r.from) ?? 1}`)))
  }

  if (input.env) {
    for (const { name, path } of envVariables()) {
      const raw = input.env[name]
      if (raw === undefined) continue
      setPath(merged, path, parseEnvValue(raw, getPath(DEFAULT_CONFIG, path) ?? ENV_SHAPES[path.join(".")]))
      sources.set(path.join("."), { kind: "env", name })
    }
  }

  for (const o of input.overrides ?? []) {
    const written = o.path.split(".")
    const path = renameSnakeCasePath(written, DEFAULT_CONFIG)
    const name = o.flag ?? `overrides[${JSON.stringify(o.path)}]`
    if (path.join(".") !== o.path) warnings.push(renamedKeyWarning({ from: written, to: path, ignored: false }, name))
    setPath(merged, path, o.value)
    sources.set(path.join("."), { kind: "flag", name })
  }

  // Checked once the overrides are in: a flag may rename the token variable too.
  if (input.env) errors.push(...unknownEnvErrors(input.env, namedByConfig(merged)))

  // Nothing set anywhere: the defaults, which decode to themselves (load.test.ts checks it). The
  // schema's first decode is ~5–10 ms of every start-up of the CLI, for a value known valid.
  if (sources.size === 0 && errors.length === 0) return { _tag: "ok", config: merged as unknown as LoopguardConfig, warnings }
  const decoded = Schema.decodeUnknownResult(LoopguardConfigSchema)(merged, { errors: "all", onExcessProperty: "error" })
  if (decoded._tag === "Success") return errors.length > 0 ? { _tag: "error", errors } : { _tag: "ok", config: decoded.success, warnings }
  for (const issue of configIssues(decoded.failure.issue)) {
    const where = describeSource(sourceOf(sources, issue.path), input, issue.path)
    errors.push(`config field ${fieldName(issue.path)} (from ${where}): ${issue.message}`)
  }
  return { _tag: "error", errors }
}

/** One line per refused key a found file sets, naming file:line and how to use the file anyway. */
const foundFileErrors = (sources: ReadonlyMap<string, ConfigSource>, input: ConfigInput): Array<string> =>
  foundFileRefusals(sources.keys()).map(({ refusal, setPath }) => {
    const where = describeSource(sources.get(setPath), input, setPath.split("."))
    return `${where}: ${refusal.path} ${refusal.why}; a config file found in the working directory may not set it (a cloned repository could carry one): name the file to use it, --config ${input.file!.path}`
  })

/** The file's object, or errors naming file:line:column. */
const readConfigFile = (
  input: { readonly path: string; readonly text: string }
): { readonly _tag: "ok"; readonly parsed: Record<string, unknown> } | { readonly _tag: "error"; readonly errors: ReadonlyArray<string> } => {
  const file = { path: input.path, text: stripBom(input.text) }
  const refused = fileGuardErrors(file)
  if (refused.length > 0) return { _tag: "error", errors: refused }
  const parseErrors: Array<ParseError> = []
  const parsed: unknown = parseJsonc(file.text, parseErrors, { allowTrailingComma: true })
  const first = parseErrors[0]
  if (first !== undefined) {
    // The first one only: the parser's later errors follow from it (often the same place again).
    const { line, column } = lineOf(file.text, first.offset)
    const words = printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()
    return { _tag: "error", errors: [`${file.path}:${line}:${column}: not valid JSON: ${words}`] }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { _tag: "error", errors: [`${file.path}:1: the config file must hold a JSON object`] }
  }
  return { _tag: "ok", parsed: parsed as Record<string, unknown> }
}

/** Depth, prototype keys and keys written twice are checked on the text, before any parser builds objects from it. */
const fileGuardErrors = (file: { readonly path: string; readonly text: string }): Array<string> => {
  const deep = tooDeepAt(file.text, MAX_CONFIG_DEPTH)
  if (deep !== null) {
    const { line, column } = lineOf(file.text, deep)
    return [`${file.path}:${line}:${column}: nested deeper than ${MAX_CONFIG_DEPTH} levels; no config key is that deep`]
  }
  const forbidden = forbiddenKeys(file.text).map(({ path, offset }) => {
    const { line, column } = lineOf(file.text, offset)
    return `${file.path}:${line}:${column}: key ${path} is not allowed (__proto__, constructor and prototype are refused)`
  })
  const repeated = duplicateKeys(file.text).map(
    ({ path, line, column, firstLine }) =>
      `${file.path}:${line + 1}:${column + 1}: key ${path} is written twice in one object (first on line ${firstLine + 1}); only the last would count: merge them into one`
  )
  return [...forbidden, ...repeated]
}

/**
 * LOOPGUARD_* variables read outside the config object (the endpoint, the config file's path,
 * development-trace switches); any other LOOPGUARD_* name that is not a knob is a typo.
 */
export const OTHER_ENV_VARIABLES: ReadonlyArray<string> = [
  "LOOPGUARD_CONFIG",
  "LOOPGUARD_BASE_URL",
  "LOOPGUARD_MODEL",
  "LOOPGUARD_API_KEY",
  "LOOPGUARD_TRACES_DIR",
  "LOOPGUARD_TRACE_REPORT"
]

/**
 * Variables a setting names (`proxy.tokenEnv`, `proxy.upstreamKeyEnv`, a route's `keyEnv`), by default and as configured:
 * they hold a token or a key, not a knob, and may well be spelled LOOPGUARD_* (the default token
 * variable is LOOPGUARD_PROXY_TOKEN).
 */
const namedByConfig = (merged: Record<string, unknown>): Array<string> => {
  const proxy = (merged["proxy"] ?? {}) as Record<string, unknown>
  const routes = proxy["routes"] !== null && typeof proxy["routes"] === "object" ? Object.values(proxy["routes"] as Record<string, unknown>) : []
  const routeKeys = routes.map((r) => (r !== null && typeof r === "object" ? (r as Record<string, unknown>)["keyEnv"] : undefined))
  return [DEFAULT_CONFIG.proxy.tokenEnv, proxy["tokenEnv"], proxy["upstreamKeyEnv"], ...routeKeys].filter((v): v is string => typeof v === "string")
}

const unknownEnvErrors = (env: Readonly<Record<string, string | undefined>>, namedVariables: ReadonlyArray<string>): Array<string> => {
  const known = new Set([...envVariables().map((v) => v.name), ...OTHER_ENV_VARIABLES, ...namedVariables])
  return Object.keys(env)
    .filter((name) => name.startsWith("LOOPGUARD_") && !known.has(name))
    .sort()
    .map((name) => `environment variable ${name} is not a loopguard setting (see docs/config.md for the list)`)
}
