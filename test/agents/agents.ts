/**
 * The real agent CLIs the proxy is tested with: the pinned npm package, and how each one is pointed
 * at a base URL (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages or the Gemini API) and run once, headless, with its tools allowed, in a workspace of
 * its own. Every agent gets a fresh home directory and a minimal environment, so nothing of the
 * machine's own configuration or keys reaches it and nothing it writes outlives the test.
 */
import type { TraceFormat } from "@loopguard/core/trace"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export interface AgentRunContext {
  /** `http://HOST:PORT/v1`: the scripted server direct, or the proxy in front of it. */
  readonly baseURL: string
  readonly modelId: string
  readonly workspace: string
  /** A fresh directory used as HOME and for the agent's config and state. */
  readonly home: string
  readonly prompt: string
}

export interface AgentInvocation {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Record<string, string>
}

export interface AgentSpec {
  readonly name: string
  /** npm package specs installed together (pinned). */
  readonly packages: ReadonlyArray<string>
  /**
   * The agent's own guard against one identical tool call repeated: how many times the call runs
   * before the agent halts the run by itself (and with which exit code). Absent: it never stops.
   */
  readonly ownRepeatGuard?: { readonly executions: number; readonly exitCode: number }
  /**
   * Removes what differs between two runs of the same task whoever is in between (ids, random
   * tool-output labels), so a direct and a proxied run compare equal when the proxy changed nothing.
   */
  readonly volatile?: (body: any) => any
  /**
   * The agent cuts a reply that repeats itself on its own (Gemini CLI's loop detection): without the
   * proxy the runaway reply is not taken whole either, but ends with no notice.
   */
  readonly ownLoopCut?: true
  /**
   * Where the agent keeps its own log of a run under `home` (a folder, and the file name's pattern
   * anywhere below it), and the format `loopguard audit` reads it as. Absent: none is kept there.
   */
  readonly ownLog?: { readonly under: string; readonly file: RegExp; readonly format: TraceFormat }
  /** Prepares config files under `home` and returns the command line. */
  readonly invocation: (installDir: string, ctx: AgentRunContext) => AgentInvocation
}

/** What every agent gets: no inherited variables beyond PATH and locale, a throwaway HOME. */
const baseEnv = (home: string): Record<string, string> => ({
  PATH: process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
  HOME: home,
  LANG: "C.UTF-8",
  TERM: "dumb",
  NO_COLOR: "1",
  TMPDIR: join(home, "tmp"),
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_DATA_HOME: join(home, ".local", "share"),
  XDG_CACHE_HOME: join(home, ".cache"),
  XDG_STATE_HOME: join(home, ".local", "state")
})

const writeJson = (path: string, value: unknown): void => {
  mkdirSync(join(path, ".."), { recursive: true })
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`)
}

/** A key the scripted server ignores: the agents refuse to start without one. */
export const TEST_API_KEY = "test-key-not-secret"

export const PI_VERSION = "0.73.1"

/**
 * pi: a custom provider in `$PI_CODING_AGENT_DIR/models.json`, `pi -p` for one prompt. Its session
 * is kept (no `--no-session`): the log `loopguard audit` reads, `$PI_CODING_AGENT_DIR/sessions/--<cwd>--/<time>_<id>.jsonl`.
 */
export const pi: AgentSpec = {
  name: "pi",
  ownLog: { under: "pi-agent/sessions", file: /\/[^/]+\.jsonl$/, format: "pi" },
  packages: [`@mariozechner/pi-coding-agent@${PI_VERSION}`],
  invocation: (installDir, ctx) => {
    const agentDir = join(ctx.home, "pi-agent")
    writeJson(join(agentDir, "models.json"), {
      providers: {
        loopguard: {
          baseUrl: ctx.baseURL,
          api: "openai-completions",
          apiKey: TEST_API_KEY,
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: ctx.modelId, reasoning: false }]
        }
      }
    })
    return {
      command: join(installDir, "node_modules", ".bin", "pi"),
      args: ["-p", "--provider", "loopguard", "--model", ctx.modelId, "--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes", "--no-context-files", ctx.prompt],
      env: { ...baseEnv(ctx.home), PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", PI_TELEMETRY: "0", PI_SKIP_VERSION_CHECK: "1" }
    }
  }
}

export const OPENCODE_VERSION = "1.18.33"
/**
 * Kilo Code's CLI. The registry listed a 7.8.1 wrapper but no 7.8.1 Linux platform packages
 * (`npm view @kilocode/cli-linux-x64@7.8.1`: E404), so npm installed a wrapper with no binary; 7.7.7
 * was the newest version whose wrapper and platform packages both existed.
 */
export const KILO_VERSION = "7.7.7"

/**
 * What differs between OpenCode and its fork Kilo: the npm package, where the platform binary
 * lands, and the prefix of the environment variables that name the config file and switch off
 * start-up network work.
 */
interface OpenCodeFamily {
  readonly name: string
  readonly packages: ReadonlyArray<string>
  readonly binary: (modules: string) => string
  readonly envPrefix: "OPENCODE" | "KILO"
  /** Variables only this member of the family has. */
  readonly extraEnv: Record<string, string>
  readonly volatile?: AgentSpec["volatile"]
  /** Config keys only this member of the family has. */
  readonly extraConfig: Record<string, unknown>
  /** Its database of sessions (`$XDG_DATA_HOME/<name>/<name>.db`), read as OpenCode's. */
  readonly ownLog: AgentSpec["ownLog"]
}

/**
 * An OpenCode-family agent: a provider on the bundled `@ai-sdk/openai-compatible` in the file
 * `<PREFIX>_CONFIG` names, `run` for one prompt. Network start-up work (model list, updates,
 * default plugins, language-server downloads, sharing) is switched off by its own variables.
 */
const openCodeFamily = (family: OpenCodeFamily): AgentSpec => ({
  name: family.name,
  packages: family.packages,
  ...(family.ownLog !== undefined ? { ownLog: family.ownLog } : {}),
  ...(family.volatile !== undefined ? { volatile: family.volatile } : {}),
  invocation: (installDir, ctx) => {
    const configPath = join(ctx.home, `${family.name}.json`)
    writeJson(configPath, {
      autoupdate: false,
      share: "disabled",
      model: `loopguard/${ctx.modelId}`,
      small_model: `loopguard/${ctx.modelId}`,
      permission: { edit: "allow", bash: "allow", webfetch: "deny", external_directory: "deny" },
      provider: {
        loopguard: {
          npm: "@ai-sdk/openai-compatible",
          name: "loopguard",
          options: { baseURL: ctx.baseURL, apiKey: TEST_API_KEY },
          models: { [ctx.modelId]: { name: ctx.modelId, tool_call: true } }
        }
      },
      ...family.extraConfig
    })
    const p = family.envPrefix
    return {
      // The platform package's binary itself: the wrapper's launcher is only put in place by an
      // install script, which the tests do not run.
      command: family.binary(join(installDir, "node_modules")),
      args: ["run", ctx.prompt],
      env: {
        ...baseEnv(ctx.home),
        [`${p}_CONFIG`]: configPath,
        [`${p}_DISABLE_MODELS_FETCH`]: "1",
        [`${p}_DISABLE_AUTOUPDATE`]: "1",
        [`${p}_DISABLE_DEFAULT_PLUGINS`]: "1",
        [`${p}_DISABLE_LSP_DOWNLOAD`]: "1",
        [`${p}_DISABLE_SHARE`]: "1",
        [`${p}_DISABLE_CLAUDE_CODE`]: "1",
        ...family.extraEnv
      }
    }
  }
})

export const opencode: AgentSpec = openCodeFamily({
  name: "opencode",
  packages: [`opencode-ai@${OPENCODE_VERSION}`],
  binary: (modules) => join(modules, `opencode-${process.platform}-${process.arch}`, "bin", "opencode"),
  envPrefix: "OPENCODE",
  ownLog: { under: ".local/share/opencode", file: /\/opencode\.db$/, format: "opencode" },
  extraConfig: { $schema: "https://opencode.ai/config.json" },
  extraEnv: {}
})

const KILO_MESSAGE_TIME = /Message time: [0-9T:.+-]+Z?/g

/**
 * Kilo Code (a fork of OpenCode): the same config with `KILO_` variables, and Kilo's own network
 * work off too: telemetry (any level but "all" turns it off), session upload, presence, the
 * background daemon.
 */
export const kilo: AgentSpec = openCodeFamily({
  name: "kilo",
  packages: [`@kilocode/cli@${KILO_VERSION}`],
  binary: (modules) => join(modules, "@kilocode", `cli-${process.platform}-${process.arch}`, "bin", "kilo"),
  envPrefix: "KILO",
  ownLog: { under: ".local/share/kilo", file: /\/kilo\.db$/, format: "opencode" },
  extraConfig: { enabled_providers: ["loopguard"] },
  extraEnv: {
    KILO_TELEMETRY_LEVEL: "off",
    KILO_DISABLE_SESSION_INGEST: "1",
    KILO_DISABLE_PRESENCE: "1",
    KILO_NO_DAEMON: "1"
  },
  // Each user message carries the wall-clock time it was sent (`<environment_details>`).
  volatile: (body) => JSON.parse(JSON.stringify(body).replace(KILO_MESSAGE_TIME, "Message time: <time>"))
})

export const QWEN_CODE_VERSION = "0.24.4"
/** Qwen Code needs Node 22; the machines may have only Node 20, so npm's Node 22 binary package runs it. */
export const QWEN_NODE_VERSION = "22.23.3"

/**
 * Qwen Code: the OpenAI auth type with base URL, key and model as flags, one positional prompt,
 * `--yolo` to allow its tools; telemetry, usage statistics and update checks off in
 * `$HOME/.qwen/settings.json`.
 */
export const qwenCode: AgentSpec = {
  name: "qwen-code",
  ownLog: { under: ".qwen/projects", file: /\/chats\/[^/]+\.jsonl$/, format: "qwen-code" },
  // "Loop detection halted the run (consecutive_identical_tool_calls …)": on the 5th identical
  // call, before it runs; always on.
  ownRepeatGuard: { executions: 4, exitCode: 1 },
  packages: [`@qwen-code/qwen-code@${QWEN_CODE_VERSION}`, `node-${process.platform}-${process.arch}@${QWEN_NODE_VERSION}`],
  invocation: (installDir, ctx) => {
    writeJson(join(ctx.home, ".qwen", "settings.json"), {
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      security: { auth: { selectedType: "openai" } }
    })
    const modules = join(installDir, "node_modules")
    return {
      command: join(modules, `node-${process.platform}-${process.arch}`, "bin", "node"),
      args: [
        join(modules, "@qwen-code", "qwen-code", "cli-entry.js"),
        "--auth-type", "openai", "--openai-base-url", ctx.baseURL, "--openai-api-key", TEST_API_KEY,
        "--model", ctx.modelId, "--yolo", "--bare", ctx.prompt
      ],
      env: { ...baseEnv(ctx.home), QWEN_CODE_SUPPRESS_YOLO_WARNING: "1" }
    }
  }
}

export const CODEX_VERSION = "0.171.0"

/**
 * Codex CLI (OpenAI Responses): a model provider with `wire_api = "responses"` in
 * `$CODEX_HOME/config.toml`, its key read from the variable `env_key` names; `codex exec` for one
 * prompt, approvals and the sandbox off (the workspace is a throwaway folder).
 */
const CODEX_RANDOM_ID = /^(msg|fco|rs)_[0-9a-f-]{20,}$/

export const codex: AgentSpec = {
  name: "codex",
  ownLog: { under: ".codex/sessions", file: /\/rollout-[^/]+\.jsonl$/, format: "codex" },
  packages: [`@openai/codex@${CODEX_VERSION}`],
  // Per run: a session and installation id, turn ids, item ids; per tool call: a random chunk label.
  volatile: (body) => {
    const { prompt_cache_key: _key, client_metadata: _meta, ...rest } = body ?? {}
    const input = Array.isArray(rest.input)
      ? rest.input.map((item: any) => {
          const { id, ...fields } = item ?? {}
          const kept = typeof id === "string" && CODEX_RANDOM_ID.test(id) ? fields : item
          return typeof kept?.output === "string"
            ? { ...kept, output: kept.output.replace(/^Chunk ID: \w+\nWall time: [\d.]+ seconds\n/, "") }
            : kept
        })
      : rest.input
    return { ...rest, input }
  },
  invocation: (installDir, ctx) => {
    const codexHome = join(ctx.home, ".codex")
    mkdirSync(codexHome, { recursive: true })
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        `model = ${JSON.stringify(ctx.modelId)}`,
        `model_provider = "loopguard"`,
        `approval_policy = "never"`,
        `sandbox_mode = "danger-full-access"`,
        `check_for_update_on_startup = false`,
        ``,
        `[analytics]`,
        `enabled = false`,
        ``,
        `[model_providers.loopguard]`,
        `name = "loopguard"`,
        `base_url = ${JSON.stringify(ctx.baseURL)}`,
        `env_key = "SCRIPTED_API_KEY"`,
        `wire_api = "responses"`,
        ``
      ].join("\n")
    )
    return {
      command: join(installDir, "node_modules", ".bin", "codex"),
      args: ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--color", "never", ctx.prompt],
      env: { ...baseEnv(ctx.home), CODEX_HOME: codexHome, SCRIPTED_API_KEY: TEST_API_KEY }
    }
  }
}

export const CLAUDE_CODE_VERSION = "2.1.332"

/**
 * Claude Code (Anthropic Messages): `ANTHROPIC_BASE_URL` is the server root (it appends
 * `/v1/messages` itself), `ANTHROPIC_API_KEY` a key; `claude -p` for one prompt with the shell and
 * write tools allowed; non-essential traffic (telemetry, update checks, error reports) off.
 */
export const claudeCode: AgentSpec = {
  name: "claude-code",
  ownLog: { under: ".claude/projects", file: /\.jsonl$/, format: "claude-code" },
  packages: [`@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`],
  // A device id made at first start (the home is new each run) and a session id.
  volatile: (body) => {
    const { metadata: _metadata, ...rest } = body ?? {}
    return rest
  },
  invocation: (installDir, ctx) => ({
    // The platform package's binary: the wrapper's launcher is put in place by an install script.
    command: join(installDir, "node_modules", "@anthropic-ai", `claude-code-${process.platform}-${process.arch}`, "claude"),
    args: ["-p", "--model", ctx.modelId, "--allowedTools", "Bash,Write,Edit,Read", "--output-format", "text", ctx.prompt],
    env: {
      ...baseEnv(ctx.home),
      ANTHROPIC_BASE_URL: ctx.baseURL.replace(/\/v1\/?$/, ""),
      ANTHROPIC_API_KEY: TEST_API_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1"
    }
  })
}

export const GEMINI_CLI_VERSION = "0.61.0"

/** Gemini CLI's settings, its own loop detection on (its default) or off. */
const geminiSettings = (loopDetection: boolean) => ({
  security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  ...(loopDetection ? {} : { model: { disableLoopDetection: true } })
})

const geminiSpec = (name: string, loopDetection: boolean): AgentSpec => ({
  name,
  ownLog: { under: ".gemini/tmp", file: /\/chats\/session-[^/]+\.jsonl?$/, format: "gemini" },
  packages: [`@google/gemini-cli@${GEMINI_CLI_VERSION}`],
  ...(loopDetection ? { ownRepeatGuard: { executions: 4, exitCode: 0 }, ownLoopCut: true as const } : {}),
  // Per call, an id with the time in it (`run_shell_command_1796180710375_0`); per shell result, its
  // process group; its built-in skills are listed in the order they finished loading, which varies
  // (in the prompt, and in the activate_skill tool's description and its enum of names).
  volatile: (body) =>
    JSON.parse(
      JSON.stringify(body ?? {})
        .replace(/"id":"([A-Za-z_]+?)_\d{10,}_(\d+)"/g, '"id":"$1_<time>_$2"')
        .replace(/Process Group PGID: \d+/g, "Process Group PGID: <pgid>")
        .replace(/<available_skills>[\s\S]*?<\/available_skills>/g, (list) => `<available_skills>${(list.match(/<skill>[\s\S]*?<\/skill>/g) ?? []).sort().join("")}</available_skills>`)
        .replace(/\(Available: ((?:'[^']*'(?:, )?)+)\)/g, (_all, names: string) => `(Available: ${names.split(", ").sort().join(", ")})`)
        .replace(/("name":\{"type":"string","enum":)(\[[^\]]*\])/g, (_all, head: string, names: string) => `${head}${JSON.stringify((JSON.parse(names) as Array<string>).sort())}`)
    ),
  invocation: (installDir, ctx) => {
    writeJson(join(ctx.home, ".gemini", "settings.json"), geminiSettings(loopDetection))
    return {
      command: process.execPath.endsWith("node") ? process.execPath : "node",
      args: [join(installDir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"), "-p", ctx.prompt, "--yolo", "-m", ctx.modelId],
      env: { ...baseEnv(ctx.home), GOOGLE_GEMINI_BASE_URL: ctx.baseURL.replace(/\/v1\/?$/, ""), GEMINI_API_KEY: TEST_API_KEY }
    }
  }
})

/**
 * Gemini CLI (the Gemini API): `GOOGLE_GEMINI_BASE_URL` is the server root (it appends
 * `/v1beta/models/…` itself), `GEMINI_API_KEY` a key, the API-key sign-in chosen in
 * `~/.gemini/settings.json` (with a base URL set, the CLI would otherwise pick a gateway sign-in it
 * then refuses headless); folder trust, telemetry, usage statistics and update checks off. `gemini
 * -p` for one prompt, `--yolo` to run tools unasked. It runs on the machine's Node (≥ 20).
 */
export const geminiCli = geminiSpec("gemini-cli", true)

/** Gemini CLI with its own loop detection off (`model.disableLoopDetection`): the proxy's ladder alone. */
export const geminiCliOwnDetectionOff = geminiSpec("gemini-cli-own-detection-off", false)

export const AGENTS: ReadonlyArray<AgentSpec> = [pi, opencode, kilo, qwenCode, codex, claudeCode, geminiCli, geminiCliOwnDetectionOff]
