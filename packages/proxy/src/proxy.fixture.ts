/**
 * Test wiring: the scripted server behind a real proxy, and the real AI SDK provider of each
 * protocol pointed at the proxy (Chat Completions through the OpenAI-compatible provider,
 * Responses through the OpenAI provider, Messages through the Anthropic provider, the Gemini API
 * through the Google provider).
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { startScriptedServer, type Script, type ScriptedServer, type ScriptedServerOptions } from "@loopguard/ai-sdk/testing"
import { DEFAULT_CONFIG, type LoopguardConfig } from "@loopguard/effect/config"
import type { LanguageModel } from "ai"
import type { ProtocolName } from "./protocol.js"
import { startProxy, type HttpStack, type ProxyEvent, type ProxyOptions, type RunningProxy } from "./server.js"

// The Anthropic provider warns about every unknown model id; the scripted model is one.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

export const PROTOCOLS: ReadonlyArray<ProtocolName> = ["chat", "responses", "messages", "gemini"]

/** Both HTTP stacks the proxy serves with: Bun's own (its default on Bun) and node:http (Node's). */
export const HTTP_STACKS: ReadonlyArray<HttpStack> = ["bun", "node"]

/** The path each protocol's requests take below `/v1`. */
export const PATHS: Readonly<Record<ProtocolName, string>> = {
  chat: "/chat/completions",
  responses: "/responses",
  messages: "/messages",
  gemini: "beta/models/scripted-model:streamGenerateContent?alt=sse"
}

/** The real provider's model for `protocol`, talking to `baseURL`. */
export const modelFor = (protocol: ProtocolName, baseURL: string, modelId = "scripted-model"): LanguageModel => {
  if (protocol === "chat") return createOpenAICompatible({ name: "scripted", baseURL, apiKey: "client-key", includeUsage: true }).chatModel(modelId)
  if (protocol === "responses") return createOpenAI({ baseURL, apiKey: "client-key" }).responses(modelId)
  // The Gemini API's version is `v1beta`, where the others have `v1`.
  if (protocol === "gemini") return createGoogleGenerativeAI({ baseURL: `${baseURL}beta`, apiKey: "client-key" })(modelId)
  return createAnthropic({ baseURL, apiKey: "client-key" }).messages(modelId)
}

export interface Rig {
  readonly server: ScriptedServer
  readonly proxy: RunningProxy
  readonly events: Array<ProxyEvent>
  readonly close: () => Promise<void>
}

export const configWith = (upstream: string, patch: (c: LoopguardConfig) => LoopguardConfig = (c) => c): LoopguardConfig =>
  patch({ ...DEFAULT_CONFIG, proxy: { ...DEFAULT_CONFIG.proxy, upstream } })

/** The scripted server, and a proxy in front of it on a free port. */
export const startRig = async (
  script: Script,
  opts: { readonly server?: ScriptedServerOptions; readonly config?: (c: LoopguardConfig) => LoopguardConfig; readonly proxy?: Partial<ProxyOptions> } = {}
): Promise<Rig> => {
  const server = await startScriptedServer(script, opts.server ?? {})
  const events: Array<ProxyEvent> = []
  const proxy = await startProxy({ config: configWith(server.baseURL, opts.config), host: "127.0.0.1", port: 0, onEvent: (e) => events.push(e), ...opts.proxy })
  return {
    server,
    proxy,
    events,
    close: async () => {
      await proxy.close()
      await server.close()
    }
  }
}

/** The proxy's request records, in order. */
export const records = (events: ReadonlyArray<ProxyEvent>) => events.flatMap((e) => (e.type === "request" ? [e.record] : []))

/** A raw POST; the whole body as text. */
export const post = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
  return { status: res.status, headers: res.headers, text: await res.text() }
}
