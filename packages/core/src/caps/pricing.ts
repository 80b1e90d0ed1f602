/**
 * Cost from usage and a price table (the cost cap, docs/run-loop.md). The table is data and deliberately
 * small: list prices change, so runtimes pass their own table from config; a model that is not
 * in the table has an unknown (null) cost rather than a guessed one.
 */
import type { Usage } from "../model/stream.js"

/** USD per million tokens. */
export interface ModelPrice {
  readonly inputPerMTok: number
  readonly outputPerMTok: number
  /** Price of input tokens served from the prompt cache; defaults to the input price. */
  readonly cachedInputPerMTok?: number
}

export type PriceTable = Readonly<Record<string, ModelPrice>>

/** Public list prices (USD / 1M tokens) at the time of writing; override from config. */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  "gpt-4o": { inputPerMTok: 2.5, outputPerMTok: 10, cachedInputPerMTok: 1.25 },
  "gpt-4o-mini": { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 },
  "gpt-4.1": { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  "gpt-4.1-mini": { inputPerMTok: 0.4, outputPerMTok: 1.6, cachedInputPerMTok: 0.1 },
  "gpt-4.1-nano": { inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
  "gpt-5": { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.125 },
  "gpt-5-mini": { inputPerMTok: 0.25, outputPerMTok: 2, cachedInputPerMTok: 0.025 },
  o3: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  "o3-mini": { inputPerMTok: 1.1, outputPerMTok: 4.4, cachedInputPerMTok: 0.55 },
  "o4-mini": { inputPerMTok: 1.1, outputPerMTok: 4.4, cachedInputPerMTok: 0.275 },
  "claude-sonnet-4": { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
  "claude-opus-4": { inputPerMTok: 15, outputPerMTok: 75, cachedInputPerMTok: 1.5 },
  "claude-3-5-haiku": { inputPerMTok: 0.8, outputPerMTok: 4, cachedInputPerMTok: 0.08 }
}

/**
 * The price for a model id. Provider prefixes (`openai/`) are dropped; an exact key wins, else
 * the longest key that the id extends at a `-` boundary (dated snapshots such as
 * `gpt-4o-2024-08-06`), so `gpt-4o-mini` never takes `gpt-4o`'s price.
 */
export const priceFor = (modelId: string, table: PriceTable = DEFAULT_PRICE_TABLE): ModelPrice | null => {
  const id = modelId.slice(modelId.lastIndexOf("/") + 1).toLowerCase()
  if (id.length === 0) return null
  const exact = table[id]
  if (exact !== undefined) return exact
  let best: string | null = null
  for (const key of Object.keys(table)) {
    if (id.startsWith(`${key.toLowerCase()}-`) && (best === null || key.length > best.length)) best = key
  }
  return best === null ? null : (table[best] ?? null)
}

/**
 * USD for one step's usage. Null when the price is unknown or the usage says nothing about
 * input or output tokens (a total alone cannot be priced).
 * Follows the AI SDK convention: `inputTokens` includes `cachedInputTokens`, and
 * `outputTokens` includes reasoning tokens.
 */
export const costOf = (usage: Usage, price: ModelPrice | null | undefined): number | null => {
  if (price === null || price === undefined) return null
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return null
  const input = Math.max(0, usage.inputTokens ?? 0)
  const cached = Math.min(input, Math.max(0, usage.cachedInputTokens ?? 0))
  const output = Math.max(0, usage.outputTokens ?? 0)
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok
  return ((input - cached) * price.inputPerMTok + cached * cachedPrice + output * price.outputPerMTok) / 1_000_000
}

/** Total tokens of a usage record: the reported total, else input + output. */
export const tokensOf = (usage: Usage): number =>
  usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)

/** Why a cost budget cannot stop a run of this model, and how to give the model a price. */
export const unpricedBudgetMessage = (modelId: string, costBudgetUsd: number, howToPrice: string): string =>
  `no price is known for model ${modelId}, so the cost cap (loop.costBudgetUsd = ${costBudgetUsd}) cannot trip; ${howToPrice}`
