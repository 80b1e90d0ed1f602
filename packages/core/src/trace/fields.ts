/**
 * Plain-TypeScript field checks for trace lines (no Schema in core). A FieldReader reads one JSON
 * object and collects a readable problem per bad field instead of throwing. `null` counts as
 * absent for optional fields, since many JSON writers emit it for "no value".
 */

export type JsonObject = Readonly<Record<string, unknown>>

/** Whether a value is a plain JSON object (not null, not an array). */
export const isJsonObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v)

/** A JSON value's kind, as named in error messages. */
export const kindOf = (v: unknown): string => {
  if (v === null) return "null"
  if (Array.isArray(v)) return "array"
  if (typeof v === "number" && !Number.isFinite(v)) return "non-finite number"
  return typeof v
}

/** Reads typed fields of one trace line, collecting a problem per wrong field instead of throwing. */
export class FieldReader {
  readonly problems: Array<string> = []

  /** `where` prefixes messages for nested objects, e.g. `toolCalls[1]`. */
  constructor(
    readonly obj: JsonObject,
    readonly where: string = ""
  ) {}

  private label(name: string): string {
    return this.where === "" ? `"${name}"` : `"${this.where}.${name}"`
  }

  private present(name: string): boolean {
    return this.obj[name] !== undefined && this.obj[name] !== null
  }

  private wrong(name: string, expected: string): undefined {
    this.problems.push(`field ${this.label(name)} must be ${expected}, got ${kindOf(this.obj[name])}`)
    return undefined
  }

  requiredString(name: string): string | undefined {
    if (!this.present(name)) {
      this.problems.push(`missing field ${this.label(name)}`)
      return undefined
    }
    const v = this.obj[name]
    return typeof v === "string" ? v : this.wrong(name, "a string")
  }

  optionalString(name: string): string | undefined {
    if (!this.present(name)) return undefined
    const v = this.obj[name]
    return typeof v === "string" ? v : this.wrong(name, "a string")
  }

  optionalBoolean(name: string): boolean | undefined {
    if (!this.present(name)) return undefined
    const v = this.obj[name]
    return typeof v === "boolean" ? v : this.wrong(name, "a boolean")
  }

  optionalNumber(name: string): number | undefined {
    if (!this.present(name)) return undefined
    const v = this.obj[name]
    return typeof v === "number" && Number.isFinite(v) ? v : this.wrong(name, "a number")
  }

  optionalInteger(name: string): number | undefined {
    if (!this.present(name)) return undefined
    const v = this.obj[name]
    return typeof v === "number" && Number.isInteger(v) ? v : this.wrong(name, "an integer")
  }

  optionalObject(name: string): JsonObject | undefined {
    if (!this.present(name)) return undefined
    const v = this.obj[name]
    return isJsonObject(v) ? v : this.wrong(name, "an object")
  }

  optionalArray(name: string): ReadonlyArray<unknown> | undefined {
    if (!this.present(name)) return undefined
    const v = this.obj[name]
    return Array.isArray(v) ? v : this.wrong(name, "an array")
  }

  /** One of a fixed set of strings. */
  optionalLiteral<T extends string>(name: string, allowed: ReadonlyArray<T>): T | undefined {
    const v = this.optionalString(name)
    if (v === undefined) return undefined
    if ((allowed as ReadonlyArray<string>).includes(v)) return v as T
    this.problems.push(`field ${this.label(name)} must be one of ${allowed.join(", ")}, got "${v}"`)
    return undefined
  }
}

/** Copy the defined entries only (exactOptionalPropertyTypes forbids explicit undefined). */
export const defined = <T extends object>(o: { [K in keyof T]: T[K] | undefined }): T => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v
  return out as T
}
