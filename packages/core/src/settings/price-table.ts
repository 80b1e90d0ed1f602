/**
 * A caller's model prices (`prices`: model id to USD per million tokens), each entry checked and
 * laid over the built-in list prices, for entries that load no Effect (the AI SDK helpers); the
 * config file checks the same section with its schema.
 */
import { DEFAULT_PRICE_TABLE, type ModelPrice, type PriceTable } from "../caps/pricing.js"
import { checkPatch, type CheckedPatch } from "./check-patch.js"

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

/** Every field a price may have; each a non-negative number. */
const PRICE_FIELDS = { inputPerMTok: 0, outputPerMTok: 0, cachedInputPerMTok: 0 }
const REQUIRED = ["inputPerMTok", "outputPerMTok"] as const

/** One model's price, or the problems with it (`path.field: …`). */
const checkPrice = (given: unknown, path: string): CheckedPatch<ModelPrice | null> => {
  if (!isPlainObject(given)) return { value: null, errors: [`${path}: Expected an object`] }
  const checked = checkPatch(PRICE_FIELDS, given, path)
  const missing = REQUIRED.filter((k) => !Object.hasOwn(given, k)).map((k) => `${path}.${k}: is missing`)
  const errors = [...checked.errors, ...missing]
  if (errors.length > 0) return { value: null, errors }
  const cached = given["cachedInputPerMTok"]
  return { value: { inputPerMTok: given["inputPerMTok"] as number, outputPerMTok: given["outputPerMTok"] as number, ...(typeof cached === "number" ? { cachedInputPerMTok: cached } : {}) }, errors }
}

/** The built-in prices with the given ones over them (ids lower-cased, as `priceFor` reads them). */
export const checkPriceTable = (given: unknown, path: string): CheckedPatch<PriceTable> => {
  if (given === undefined) return { value: DEFAULT_PRICE_TABLE, errors: [] }
  if (!isPlainObject(given)) return { value: DEFAULT_PRICE_TABLE, errors: [`${path}: Expected an object`] }
  const errors: Array<string> = []
  const entries: Array<[string, ModelPrice]> = []
  for (const [model, price] of Object.entries(given)) {
    const checked = checkPrice(price, `${path}.${model}`)
    errors.push(...checked.errors)
    if (checked.value !== null) entries.push([model.toLowerCase(), checked.value])
  }
  // fromEntries defines own properties: a model named `__proto__` is a key, not the table's prototype.
  return { value: Object.fromEntries([...Object.entries(DEFAULT_PRICE_TABLE), ...entries]), errors }
}
