/**
 * The language-model types the middleware touches, read off `ai`'s own middleware type so the
 * package needs no direct dependency on the provider-spec package.
 */
import type { LanguageModelMiddleware } from "ai"

type WrapStream = NonNullable<LanguageModelMiddleware["wrapStream"]>
type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>

export type CallOptions = Parameters<WrapStream>[0]["params"]
export type InnerModel = Parameters<WrapStream>[0]["model"]
export type StreamResult = Awaited<ReturnType<WrapStream>>
export type GenerateResult = Awaited<ReturnType<WrapGenerate>>
export type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never
export type FinishPart = Extract<StreamPart, { type: "finish" }>
export type Content = GenerateResult["content"][number]
