/**
 * The conversation: read a line, run it as a turn of the one session, show the turn, read the
 * next. A try-best pause shows the pause menu and may resume the turn; a cancelled turn ends with
 * its report and the prompt comes back. The store and the services live for the whole chat.
 */
import type { RunInput, RunResult } from "@loopguard/effect"
import { Effect } from "effect"
import { DEFAULT_PAUSE_POLICY_OPTIONS, commandOnPath, makePauseHandler, type PauseHandler } from "../pause/index.js"
import { displayUrl, terminalSafe } from "../render/index.js"
import { runSessionWith } from "../session.js"
import { turnInput, type ChatContext, type ChatState } from "./chat-context.js"
import { runSlashCommand } from "./slash-commands.js"
import { parseChatLine } from "./slash.js"

export const PROMPT = "you> "

const pauseHandlerFor = (ctx: ChatContext): PauseHandler =>
  makePauseHandler({
    config: ctx.endpoint.config,
    modelId: ctx.endpoint.modelId,
    hasCommand: commandOnPath(ctx.env),
    env: ctx.env,
    policy: ctx.policy,
    limits: { ...DEFAULT_PAUSE_POLICY_OPTIONS, maxResumes: ctx.endpoint.config.tryBest.maxResumes },
    json: false,
    write: ctx.renderer.line,
    say: ctx.renderer.line,
    warn: ctx.renderer.line,
    cwd: ctx.endpoint.cwd,
    // The chat's own line source answers the menu, on a terminal or from a pipe alike.
    isTTY: true,
    ask: async (question) => {
      const r = await ctx.lines.read(question)
      return r.type === "line" ? r.text : null
    }
  })

/** Reads lines until one is a turn to run; null when the chat ends (state.end says how). */
export const readTurn = (ctx: ChatContext, state: ChatState): Effect.Effect<RunInput | null> =>
  Effect.gen(function* () {
    let interrupted = false
    while (true) {
      const read = yield* Effect.promise(() => ctx.lines.read(PROMPT))
      if (read.type === "end") {
        state.end = "end"
        return null
      }
      if (read.type === "interrupt") {
        if (interrupted) {
          state.end = "interrupt"
          return null
        }
        interrupted = true
        ctx.renderer.line(ctx.style.dim("(Ctrl-C again, /quit or Ctrl-D to leave)"))
        continue
      }
      interrupted = false
      const line = parseChatLine(read.text)
      if (line.type === "empty") continue
      if (line.type === "invalid") {
        ctx.renderer.line(ctx.style.yellow(line.message))
        continue
      }
      if (line.type === "prompt") {
        state.lastPrompt = line.text
        state.pauses = pauseHandlerFor(ctx)
        return turnInput(ctx, state, line.text)
      }
      const outcome = yield* runSlashCommand(ctx, state, line.command)
      if (outcome.type === "quit") {
        state.end = "quit"
        return null
      }
      if (outcome.type === "run") return outcome.input
    }
  })

/** After each run: a pause may resume the turn; otherwise the next line decides. */
const afterRun = (ctx: ChatContext, state: ChatState) => (last: RunResult, _all: ReadonlyArray<RunResult>): Effect.Effect<RunInput | null> =>
  Effect.gen(function* () {
    state.controller = null
    state.results.push(last)
    if (last.report.reason !== "cancelled" && state.pauses !== null) {
      const text = yield* state.pauses.resume(last, state.results, state.lastPrompt ?? "")
      if (text !== null) return turnInput(ctx, state, text)
    }
    return yield* readTurn(ctx, state)
  })

export const greeting = (ctx: ChatContext, resumed: number): ReadonlyArray<string> => [
  ctx.style.bold(`loopguard chat · ${terminalSafe(ctx.endpoint.modelId)} at ${displayUrl(ctx.endpoint.baseURL)}`),
  ctx.style.dim(
    `session ${ctx.sessionId}${resumed > 0 ? ` (resumed: ${resumed} messages)` : ""} · ${ctx.endpoint.storeTarget !== null ? `kept in ${ctx.endpoint.storeTarget}` : "in memory only"}`
  ),
  ctx.style.dim("/help lists the commands · Ctrl-C cancels a turn · Ctrl-D quits")
]

/** Runs the chat until /quit, end of input or a second Ctrl-C at the prompt. */
export const runChat = (ctx: ChatContext, state: ChatState) =>
  Effect.gen(function* () {
    const first = yield* readTurn(ctx, state)
    if (first === null) return state.end
    yield* runSessionWith(
      {
        config: ctx.endpoint.config,
        llm: ctx.endpoint.llm,
        tools: ctx.endpoint.tools,
        json: false,
        output: "human",
        modelId: ctx.endpoint.modelId,
        renderer: ctx.renderer,
        store: ctx.store,
        cwd: ctx.endpoint.cwd,
        secrets: ctx.endpoint.secrets,
        secretEnvNames: [ctx.endpoint.apiKeyEnv]
      },
      first,
      afterRun(ctx, state)
    )
    return state.end
  })

/**
 * Ctrl-C as a signal (during a turn the terminal is in its normal mode): the first cancels the
 * running turn, the second quits. Between turns there is nothing to cancel, so it quits.
 */
export const onInterrupt = (ctx: ChatContext, state: ChatState): "cancelled" | "quit" => {
  const c = state.controller
  if (c === null || c.signal.aborted) return "quit"
  ctx.renderer.line(ctx.style.yellow("cancelling the turn… (Ctrl-C again to quit)"))
  c.abort("SIGINT")
  return "cancelled"
}
