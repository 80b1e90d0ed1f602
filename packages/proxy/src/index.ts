/**
 * @loopguard/proxy: loopguard as an OpenAI- and Anthropic-compatible streaming proxy. Point an
 * agent's base URL at it and the repetition guard, the cross-step judge and the retry policy
 * apply to that agent, with no change to the agent (docs/proxy.md).
 */
export { ProxyServer, ProxyStartError, makeProxyServer, startProxy, proxyUrl, settingsOf, HEALTH_PATH, type HttpStack, type ProxyEvent, type ProxyOptions, type RunningProxy } from "./server.js"
export type { RequestRecord } from "./handler.js"
export { upstreamProblem, upstreamShown } from "./upstream-url.js"
export { memoryBackoff, toldBackoff, type BackoffBoard, type ToldBackoff } from "./backoff.js"
export type { AuthPolicy } from "./http-util.js"
export { judgeRequest, judgeRequestSliced, type Verdict, type ProxyAction, type Insert, type StopVerdict } from "./verdict.js"
export { TurnMemo, TurnJudge } from "./turn-judge.js"
export { CUT_MARK, STOP_MARK } from "./notices.js"
export { chatProtocol } from "./protocols/chat.js"
export { responsesProtocol } from "./protocols/responses.js"
export { messagesProtocol } from "./protocols/messages.js"
export { geminiProtocol } from "./protocols/gemini.js"
export type { Protocol, ProtocolName, Conversation } from "./protocol.js"
