/**
 * Building the renderer a command needs: its mode, colour decided from the terminal and the
 * environment, the model's price from config, and where the text goes.
 */
import { DEFAULT_PRICE_TABLE, priceFor, type ModelPrice, type PriceTable } from "@loopguard/core/caps"
import type { LoopguardConfig } from "@loopguard/effect"
import { makeRenderer, type OutputMode, type Renderer } from "./renderer.js"
import { secretValues } from "./env-secrets.js"
import { colourWanted, makeStyle, type Env } from "./style.js"

export const priceOf = (config: LoopguardConfig, modelId: string | undefined): ModelPrice | null =>
  modelId === undefined ? null : priceFor(modelId, { ...DEFAULT_PRICE_TABLE, ...(config.prices as PriceTable) })

/**
 * Turns a line-at-a-time writer into a text writer: whole lines are passed on as they complete,
 * a partial line waits for its end (or for `flush`).
 */
export const lineSink = (writeLine: (line: string) => void): { readonly out: (text: string) => void; readonly flush: () => void } => {
  let pending = ""
  return {
    out: (text) => {
      const parts = (pending + text).split("\n")
      pending = parts.pop() ?? ""
      for (const l of parts) writeLine(l)
    },
    flush: () => {
      if (pending !== "") writeLine(pending)
      pending = ""
    }
  }
}

export interface RendererSetup {
  readonly mode: OutputMode
  readonly config: LoopguardConfig
  readonly modelId?: string
  /** Line writer (tests); default: stdout as a stream of text. */
  readonly write?: (line: string) => void
  readonly isTTY?: boolean
  readonly env?: Env
  /** Variables whose values are never shown besides the credential-named ones (`--api-key-env`). */
  readonly secretNames?: ReadonlyArray<string>
  /** Values never shown, whatever variable holds them. */
  readonly secrets?: ReadonlyArray<string>
}

export const rendererFor = (setup: RendererSetup): Renderer => {
  const isTTY = setup.isTTY ?? process.stdout.isTTY === true
  const style = makeStyle(setup.write === undefined && colourWanted(isTTY, setup.env ?? process.env))
  const out = setup.write !== undefined ? lineSink(setup.write).out : (text: string) => void process.stdout.write(text)
  return makeRenderer({
    mode: setup.mode,
    style,
    out,
    price: priceOf(setup.config, setup.modelId),
    live: setup.write === undefined && isTTY,
    stallLimitMs: setup.config.stream.chunkTimeoutMs,
    secrets: [...new Set([...(setup.secrets ?? []).filter((v) => v !== ""), ...secretValues(setup.env ?? process.env, setup.secretNames ?? [])])].sort(
      (a, b) => b.length - a.length
    )
  })
}
