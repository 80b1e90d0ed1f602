/**
 * Keys spelled in snake_case where the settings now spell them in camelCase (`try_best.max_resumes`
 * for `tryBest.maxResumes`): accepted for one release, each reported so the caller can warn. Which
 * keys exist comes from the defaults' shape; a section of free-form keys (an empty object in the
 * defaults, such as a table of model prices) is left as written.
 */

export interface RenamedKey {
  /** The path as written. */
  readonly from: ReadonlyArray<string>
  /** The path it now has. */
  readonly to: ReadonlyArray<string>
  /** The new spelling was given too, so the old one's value was dropped. */
  readonly ignored: boolean
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

/** `max_resumes` → `maxResumes`. */
export const camelCaseKey = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/** A section whose keys the defaults fix (not a free-form table). */
const isSection = (shape: unknown): shape is Record<string, unknown> => isPlainObject(shape) && Object.keys(shape).length > 0

/** The camelCase field an unknown `key` spells in snake_case, or null. */
const renamedField = (key: string, shape: Record<string, unknown>): string | null => {
  if (key in shape || !key.includes("_")) return null
  const camel = camelCaseKey(key)
  return camel in shape ? camel : null
}

/** `value` with every snake_case spelling of a field of `shape` renamed, at any depth of its sections. */
export const renameSnakeCaseKeys = (value: unknown, shape: unknown): { readonly value: unknown; readonly renamed: ReadonlyArray<RenamedKey> } => {
  const renamed: Array<RenamedKey> = []
  const walk = (v: unknown, s: unknown, from: ReadonlyArray<string>, to: ReadonlyArray<string>): unknown => {
    if (!isPlainObject(v) || !isSection(s)) return v
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(v)) {
      const field = renamedField(key, s)
      if (field !== null) renamed.push({ from: [...from, key], to: [...to, field], ignored: field in v })
      if (field !== null && field in v) continue
      const name = field ?? key
      out[name] = walk(inner, s[name], [...from, key], [...to, name])
    }
    return out
  }
  return { value: walk(value, shape, [], []), renamed }
}

/** A dotted path (an override's) with each snake_case spelling of a field of `shape` renamed. */
export const renameSnakeCasePath = (path: ReadonlyArray<string>, shape: unknown): ReadonlyArray<string> => {
  const out: Array<string> = []
  let section: unknown = shape
  for (const key of path) {
    const name = isSection(section) ? (renamedField(key, section) ?? key) : key
    out.push(name)
    section = isSection(section) ? section[name] : undefined
  }
  return out
}
