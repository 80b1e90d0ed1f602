/**
 * What each slash command does. Each prints through the renderer's line writer (so it lands
 * after any open text) and never ends the chat on a mistake: a bad file, an unreadable session
 * are said in one line and the prompt comes back.
 */
import { DEFAULT_CONFIG, type RunInput } from "@loopguard/effect"
import { exportTrace } from "@loopguard/effect/store"
import { Effect } from "effect"
import { resolve } from "node:path"
import { displayUrl, exitLine, formatCost, reportDetails, terminalSafe } from "../render/index.js"
import { turnInput, type ChatContext, type ChatState } from "./chat-context.js"
import { credentialRedactor, redactValues, secretValues } from "../render/env-secrets.js"
import { formatList } from "../sessions-format.js"
import { settingsDiff } from "./settings-diff.js"
import { writeOutputFile } from "../output-file.js"
import { SLASH_HELP, type SlashCommand } from "./slash.js"

/** What the chat does after a command: read another line, run a turn, or leave. */
export type CommandOutcome = { readonly type: "read" } | { readonly type: "run"; readonly input: RunInput } | { readonly type: "quit" }

const READ: CommandOutcome = { type: "read" }

const say = (ctx: ChatContext, lines: ReadonlyArray<string>) => {
  for (const l of lines) ctx.renderer.line(l)
}

export const helpLines = (ctx: ChatContext): ReadonlyArray<string> => {
  const width = Math.max(...SLASH_HELP.map(([u]) => u.length))
  return [
    "Type a message and press Enter to send it. Keys: Ctrl-C cancels the running turn (twice quits), Ctrl-D at the prompt quits.",
    ...SLASH_HELP.map(([usage, what]) => `  ${ctx.style.bold(usage.padEnd(width))}  ${what}`)
  ]
}

const reportLines = (ctx: ChatContext, state: ChatState): ReadonlyArray<string> => {
  const last = state.results[state.results.length - 1]
  if (last === undefined) return ["no turn yet: nothing to report"]
  const steps = state.results.reduce((n, r) => n + r.report.stepsUsed, 0)
  const tokens = state.results.reduce((n, r) => n + r.report.tokens.total, 0)
  const costs = state.results.map((r) => r.report.costUsd)
  const cost = costs.some((c) => c === null) ? null : costs.reduce((a: number, c) => a + (c ?? 0), 0)
  const answer = last.report.finalText?.trim() ?? ""
  return [
    exitLine(last.report, null, ctx.style),
    ...reportDetails(last.report, ctx.style),
    ...(answer !== "" ? [`   answer: ${terminalSafe(answer.length > 200 ? answer.slice(0, 199) + "…" : answer)}`] : []),
    `   this chat: ${state.results.length} run${state.results.length === 1 ? "" : "s"} · ${steps} step${steps === 1 ? "" : "s"} · ${tokens.toLocaleString("en-US")} tokens · ${formatCost(cost)}`
  ]
}

const configLines = (ctx: ChatContext): ReadonlyArray<string> => {
  const e = ctx.endpoint
  const changed = settingsDiff(e.config, DEFAULT_CONFIG)
  // A setting copied from a credential variable (or holding a key's shape) stays hidden; the others
  // are shown, LOOPGUARD_* ones included: what the environment changed is what /config is for.
  const redact = credentialRedactor(ctx.env, [e.apiKeyEnv])
  return [
    `endpoint: ${displayUrl(e.baseURL)} · model ${terminalSafe(e.modelId)}`,
    `session: ${ctx.sessionId} · kept ${e.storeTarget !== null ? `in ${ctx.store.location(ctx.sessionId)}` : "in memory only (--session-dir DIR keeps it)"}`,
    `tools: ${e.tools.map((t) => t.spec.name).join(", ")} in ${e.cwd}`,
    `on a try-best pause: ${ctx.policy}`,
    changed.length === 0
      ? "settings: all defaults (docs/config.md lists each setting)"
      : "settings changed from the defaults (by the config file, LOOPGUARD_* variables or flags):",
    ...changed.map((l) => `  ${terminalSafe(redact(l))}`)
  ]
}

const exportSession = (ctx: ChatContext, file: string) =>
  Effect.gen(function* () {
    const messages = yield* ctx.store.messages(ctx.sessionId)
    const path = resolve(file)
    try {
      writeOutputFile(path, redactValues(exportTrace(ctx.sessionId, messages, ctx.endpoint.modelId), secretValues(ctx.env, [ctx.endpoint.apiKeyEnv])))
    } catch (e) {
      return [`/export: cannot write ${path}: ${(e as Error).message}`]
    }
    return [`wrote ${messages.length} messages to ${path} as a trace (v1); read it with \`loopguard audit ${file}\` or \`loopguard sessions import ${file}\``]
  }).pipe(Effect.catch((e) => Effect.succeed([`/export: ${e.message}`])))

const sessionLines = (ctx: ChatContext) =>
  ctx.endpoint.storeTarget === null
    ? Effect.succeed([`sessions are kept in memory only; this one is ${ctx.sessionId} (start with --session-dir DIR to keep them)`])
    : ctx.store.list().pipe(
        Effect.map((list) => [
          `sessions in ${ctx.endpoint.storeTarget} (this one: ${ctx.sessionId}; resume one with --session ID):`,
          ...formatList(list, ctx.endpoint.storeTarget ?? "").split("\n").map((l) => `  ${l}`)
        ]),
        Effect.catch((e) => Effect.succeed([`/sessions: ${e.message}`]))
      )

/** `/retry`: the last prompt is sent again as a new turn, whatever became of the last one. */
const retry = (ctx: ChatContext, state: ChatState): CommandOutcome => {
  if (state.lastPrompt === null) {
    say(ctx, ["nothing to retry yet: send a message first"])
    return READ
  }
  say(ctx, [`sending again: ${terminalSafe(state.lastPrompt)}`])
  return { type: "run", input: turnInput(ctx, state, state.lastPrompt) }
}

export const runSlashCommand = (ctx: ChatContext, state: ChatState, command: SlashCommand): Effect.Effect<CommandOutcome> =>
  Effect.gen(function* () {
    switch (command.name) {
      case "help":
        say(ctx, helpLines(ctx))
        return READ
      case "report":
        say(ctx, reportLines(ctx, state))
        return READ
      case "config":
        say(ctx, configLines(ctx))
        return READ
      case "export":
        say(ctx, yield* exportSession(ctx, command.file))
        return READ
      case "sessions":
        say(ctx, yield* sessionLines(ctx))
        return READ
      case "retry":
        return retry(ctx, state)
      case "quit":
        return { type: "quit" }
    }
  })
