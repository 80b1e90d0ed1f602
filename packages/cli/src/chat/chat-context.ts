/**
 * What one `loopguard chat` process holds: the endpoint and the store it talks to, the session,
 * where lines come from and go to, and the state that changes turn by turn.
 */
import type { RunInput, RunResult, SessionStoreShape } from "@loopguard/effect"
import type { Endpoint } from "../endpoint.js"
import type { OnPausePolicy, PauseHandler } from "../pause/index.js"
import type { Renderer, Style } from "../render/index.js"
import type { LineSource } from "./line-source.js"

export interface ChatContext {
  readonly endpoint: Endpoint
  /** The store in use: the session folder's, or one in memory for this process. */
  readonly store: SessionStoreShape
  readonly sessionId: string
  readonly lines: LineSource
  readonly renderer: Renderer
  readonly style: Style
  /** What a try-best pause does in chat (by default: ask, with the menu). */
  readonly policy: OnPausePolicy
  readonly env: Readonly<Record<string, string | undefined>>
}

/** How the chat ended: /quit, end of input (Ctrl-D), or Ctrl-C twice. */
export type ChatEnd = "quit" | "end" | "interrupt"

export interface ChatState {
  /** The running turn's cancel switch; null between turns. */
  controller: AbortController | null
  /** The last prompt the user typed (the goal a hand-off carries, what /retry sends again). */
  lastPrompt: string | null
  /** Every run of this process, oldest first. */
  readonly results: Array<RunResult>
  /** Pauses of the current user turn (a new prompt starts a new count). */
  pauses: PauseHandler | null
  end: ChatEnd
}

export const initialChatState = (): ChatState => ({ controller: null, lastPrompt: null, results: [], pauses: null, end: "end" })

/** A run of the session with a fresh cancel switch; without a prompt the session goes on as it stands. */
export const turnInput = (ctx: ChatContext, state: ChatState, prompt?: string): RunInput => {
  const controller = new AbortController()
  state.controller = controller
  return {
    sessionId: ctx.sessionId,
    system: ctx.endpoint.system,
    workspace: ctx.endpoint.cwd,
    signal: controller.signal,
    ...(prompt !== undefined ? { prompt } : {})
  }
}
