import { describe, expect, test } from "bun:test"
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { DEFAULT_CONFIG } from "@loopguard/effect"
import { makeMemoryStore } from "@loopguard/effect/store"
import { Effect } from "effect"
import type { Endpoint } from "../endpoint.js"
import { makeRenderer, makeStyle } from "../render/index.js"
import { initialChatState, type ChatContext } from "./chat-context.js"
import { runSlashCommand } from "./slash-commands.js"

const KEY = "localserverkey0123456789"
const DB_PASSWORD = "hunter2-correct-horse"

/** What `/config` shows for a config changed by the environment `env`. */
const configShown = async (config: typeof DEFAULT_CONFIG, env: Record<string, string>): Promise<string> => {
  let shown = ""
  const endpoint: Endpoint = {
    config,
    llm: layerOpenAICompatible({ baseURL: "http://127.0.0.1:9/v1", modelId: "m" }),
    modelId: "m",
    baseURL: "http://127.0.0.1:9/v1",
    apiKeyEnv: "MY_LLM",
    secrets: [],
    cwd: "/tmp",
    tools: [],
    system: "sys",
    storeTarget: null,
    store: undefined
  }
  const ctx: ChatContext = {
    endpoint,
    store: makeMemoryStore(),
    sessionId: "s1",
    lines: { terminal: false, read: async () => ({ type: "end" }), suspend: () => {}, close: () => {} },
    renderer: makeRenderer({ mode: "human", style: makeStyle(false), out: (t) => (shown += t), price: null }),
    style: makeStyle(false),
    policy: "ask",
    env
  }
  await Effect.runPromise(runSlashCommand(ctx, initialChatState(), { name: "config" }))
  return shown
}

describe("/config", () => {
  test("shows the settings LOOPGUARD_* variables changed, values and all; hides credentials' values", async () => {
    const config = {
      ...DEFAULT_CONFIG,
      textToolCalls: { ...DEFAULT_CONFIG.textToolCalls, mode: "rollback" as const },
      completionCheck: { ...DEFAULT_CONFIG.completionCheck, command: `make test PGPASSWORD=${DB_PASSWORD} KEY=${KEY}` },
      retry: { ...DEFAULT_CONFIG.retry, retryableStatuses: [404, 409] }
    }
    const shown = await configShown(config, {
      LOOPGUARD_TEXT_TOOL_CALLS_MODE: "rollback",
      LOOPGUARD_COMPLETION_CHECK_COMMAND: config.completionCheck.command,
      LOOPGUARD_RETRY_RETRYABLE_STATUSES: "404,409",
      HOME: "/home/someone",
      DB_PASSWORD,
      MY_LLM: KEY
    })
    expect(shown).toContain('textToolCalls.mode: "rollback"')
    expect(shown).toContain("retry.retryableStatuses: [404,409]")
    expect(shown).toContain('completionCheck.command: "make test PGPASSWORD=[REDACTED] KEY=[REDACTED]"')
    expect(shown).not.toContain(DB_PASSWORD)
    expect(shown).not.toContain(KEY)
  })
})
