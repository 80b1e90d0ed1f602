/**
 * `loopguard chat`: one process, many turns, against any OpenAI-compatible endpoint (the same
 * endpoint, model, tool and store flags as `run`). `--session ID` resumes a session kept in
 * `--session-dir`. Exit status 0 after /quit or end of input, 130 after Ctrl-C twice, 2 for bad
 * flags or a session that cannot be resumed.
 */
import { textOf, type Message } from "@loopguard/core/model"
import { makeMemoryStore, type SessionStoreShape } from "@loopguard/effect"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { textFlag } from "../text-flag.js"
import { randomBytes } from "node:crypto"
import { initialChatState, type ChatContext } from "../chat/chat-context.js"
import { greeting, onInterrupt, runChat } from "../chat/chat-loop.js"
import { linesFor } from "../chat/line-source.js"
import { endpointFlags, prepareEndpoint, warnIfNoApiKey } from "../endpoint.js"
import { RunFailed, UsageError } from "../errors.js"
import { takeOverSigint } from "../sigint.js"
import { storeFailure } from "../store-target.js"
import { onFirstSignal } from "../signals.js"
import { chooseShell, SHELL_WORDS, toolsFor } from "../chat/shell-choice.js"
import { askOnTerminal } from "../pause/pause-prompt.js"
import { quotedId, sessionIdProblem } from "../session-id.js"
import { colourWanted, makeRenderer, makeStyle, priceOf, secretValues, terminalSafe } from "../render/index.js"

/** `chat-20261130-171500-3fa2`: sorts by time, unique enough for one person's folder. */
export const newSessionId = (now: Date = new Date()): string =>
  `chat-${now.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}-${randomBytes(2).toString("hex")}`

/** The session to resume, read whole before the first turn: a damaged one is a usage error now, not later. */
const loadResumed = (store: SessionStoreShape, id: string, where: string) =>
  Effect.gen(function* () {
    const bad = sessionIdProblem(id)
    if (bad !== null) return yield* new UsageError({ message: `--session ${quotedId(id)}: ${bad}` })
    const messages = yield* store.messages(id).pipe(Effect.mapError(storeFailure))
    if (messages.length === 0) return yield* new UsageError({ message: `--session ${id}: no such session in ${where} (\`loopguard sessions list\` lists them)` })
    return messages
  })

/** The last exchange of a resumed session, so the person knows where it stands. */
const recap = (messages: ReadonlyArray<Message>): ReadonlyArray<string> => {
  const lastUser = [...messages].reverse().find((m) => m.role === "user" && m.synthetic === undefined)
  const lastReply = [...messages].reverse().find((m) => m.role === "assistant" && m.excluded === undefined)
  const clip = (s: string) => terminalSafe((s.length > 160 ? s.slice(0, 159) + "…" : s).replace(/\s+/g, " "))
  return [
    ...(lastUser?.role === "user" ? [`last message: ${clip(lastUser.text)}`] : []),
    ...(lastReply?.role === "assistant" && textOf(lastReply).trim() !== "" ? [`last answer: ${clip(textOf(lastReply).trim())}`] : [])
  ]
}

export const chatCommand = Command.make(
  "chat",
  {
    ...endpointFlags,
    session: textFlag("session").pipe(Flag.optional, Flag.withDescription("resume this session (kept in --session-dir DIR or --store URL)"))
  },
  (flags) =>
    Effect.gen(function* () {
      const prepared = yield* prepareEndpoint(flags)
      if (Option.isSome(flags.session) && prepared.storeTarget === null) {
        return yield* new UsageError({ message: "--session needs --session-dir DIR or --store URL (where the session is kept)" })
      }
      const store = prepared.store ?? makeMemoryStore()
      const resumed = Option.isSome(flags.session) ? yield* loadResumed(store, flags.session.value, prepared.storeTarget ?? "") : []
      warnIfNoApiKey(prepared)
      // An unapproved shell in the current folder is offered only after the person said so (on a terminal).
      const terminal = process.stdin.isTTY === true && process.stderr.isTTY === true
      const shell = yield* Effect.promise(() => chooseShell(prepared.config, prepared.cwd, terminal, askOnTerminal))
      const endpoint = { ...prepared, tools: toolsFor(shell, prepared.cwd, prepared.config, prepared.apiKeyEnv) }
      const style = makeStyle(colourWanted(process.stdout.isTTY === true, process.env))
      const renderer = makeRenderer({
        mode: "human",
        style,
        out: (t) => void process.stdout.write(t),
        price: priceOf(endpoint.config, endpoint.modelId),
        live: process.stdout.isTTY === true,
        stallLimitMs: endpoint.config.stream.chunkTimeoutMs,
        secrets: [...new Set([...endpoint.secrets, ...secretValues(process.env, [endpoint.apiKeyEnv])])]
      })
      const lines = linesFor(process.stdin, process.stdout)
      const ctx: ChatContext = {
        endpoint,
        store,
        sessionId: Option.isSome(flags.session) ? flags.session.value : newSessionId(),
        lines,
        renderer,
        style,
        // In a conversation someone is there to choose: a pause asks unless a policy was set.
        policy: Option.isNone(flags.onPause) && endpoint.config.tryBest.onPause === "stop" ? "ask" : endpoint.config.tryBest.onPause,
        env: process.env
      }
      const state = initialChatState()
      for (const l of [...greeting(ctx, resumed.length), style.dim(SHELL_WORDS[shell]), ...recap(resumed).map((l) => style.dim(l))]) renderer.line(l)
      const onSigint = () => {
        if (onInterrupt(ctx, state) === "quit") {
          lines.close()
          process.exit(130)
        }
      }
      // SIGTERM (SIGINT is chat's own, above): end the running turn with its report, then the chat;
      // the process exits 143 (signals.ts).
      const release = onFirstSignal((signal) => {
        state.controller?.abort(signal)
        lines.close()
      })
      const end = yield* Effect.scoped(Effect.andThen(takeOverSigint(onSigint), runChat(ctx, state))).pipe(
        // Another writer on the session, a full disk, a corrupt record: one line and its exit status.
        Effect.mapError(storeFailure),
        Effect.ensuring(Effect.sync(() => {
          release()
          lines.close()
        }))
      )
      if (end === "interrupt") return yield* new RunFailed({ message: "", exitCode: 130 })
    }).pipe(
      Effect.scoped,
      // The conversation is over and every finalizer has run (store lease released, readline
      // closed): a handle a library keeps open (stdin, a keep-alive socket) must not keep the
      // process waiting. The timer holds nothing open itself.
      Effect.ensuring(Effect.sync(() => void setTimeout(() => process.exit(), 1000).unref()))
    )
).pipe(Command.withDescription("Talk to a model over many turns with loopguard on (slash commands: /help)"))
