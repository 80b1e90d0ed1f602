/**
 * How many tokens a model's context holds, for compaction near the limit (compaction is
 * what makes a loop without a step cap safe). A small table of common models, matched on the model
 * id without its provider prefix; config `compaction.contextSizes` entries win. Unknown models have
 * no size: then only a provider's "context length exceeded" answer triggers a compaction.
 */

export interface ContextSizeRule {
  /** Matched against the lower-cased model id without a `provider/` prefix. */
  readonly pattern: RegExp
  readonly tokens: number
}

/** Checked in order: more specific ids first. */
export const DEFAULT_CONTEXT_SIZES: ReadonlyArray<ContextSizeRule> = [
  { pattern: /^gpt-4\.1/, tokens: 1_047_576 },
  { pattern: /^gpt-5/, tokens: 400_000 },
  { pattern: /^gpt-4o/, tokens: 128_000 },
  { pattern: /^gpt-4-turbo/, tokens: 128_000 },
  { pattern: /^gpt-3\.5-turbo/, tokens: 16_385 },
  { pattern: /^o[134](-mini|-pro)?\b/, tokens: 200_000 },
  { pattern: /^claude/, tokens: 200_000 },
  { pattern: /^gemini-(1\.5|2|2\.5)/, tokens: 1_048_576 },
  { pattern: /^deepseek/, tokens: 128_000 },
  { pattern: /^(meta-llama\/)?llama-?3\.[123]/, tokens: 131_072 },
  { pattern: /^qwen2\.5|^qwen3/, tokens: 32_768 },
  { pattern: /^(mistral-large|mistral-medium|mistral-small|codestral)/, tokens: 128_000 }
]

const bareId = (modelId: string): string => {
  const id = modelId.trim().toLowerCase()
  const slash = id.lastIndexOf("/")
  return slash >= 0 ? id.slice(slash + 1) : id
}

/**
 * The context size of a model: an exact (case-insensitive) config entry, else a config entry that
 * is a prefix of the id, else the default table; null when unknown.
 */
export const contextSizeFor = (
  modelId: string,
  overrides: Readonly<Record<string, number>> = {},
  table: ReadonlyArray<ContextSizeRule> = DEFAULT_CONTEXT_SIZES
): number | null => {
  const id = modelId.trim().toLowerCase()
  const entries = Object.entries(overrides).map(([k, v]) => [k.toLowerCase(), v] as const)
  const exact = entries.find(([k]) => k === id || k === bareId(id))
  if (exact) return exact[1]
  const prefix = entries.filter(([k]) => id.startsWith(k) || bareId(id).startsWith(k)).sort((a, b) => b[0].length - a[0].length)[0]
  if (prefix) return prefix[1]
  return table.find((r) => r.pattern.test(bareId(id)))?.tokens ?? null
}
