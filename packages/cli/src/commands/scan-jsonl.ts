/**
 * `scan --jsonl` over stdin as it arrives: lines are split from the byte stream (core's
 * LineSplitter), each parsed and scanned on its own and its verdict printed at once, so memory is
 * one chunk plus one line however long the input. A line over `input.maxLineBytes` is scanned on
 * its kept beginning and named on stderr with its size.
 */
import { scanRepetition, type RepeatOptions } from "@loopguard/core/repeat"
import { LineSplitter, parseCutJson, type SplitLine } from "@loopguard/core/trace"
import { Console, Effect, Stream } from "effect"
import { UsageError } from "../errors.js"
import { stdinBytes } from "../io.js"

/** The JSON string a line holds, or a UsageError naming stdin:line. */
const lineText = (l: SplitLine): Effect.Effect<string, UsageError> =>
  Effect.suspend(() => {
    let text: unknown
    try {
      // A cut line ends inside its string: close it to scan what was kept.
      text = l.capped ? parseCutJson(l.text) : JSON.parse(l.text)
    } catch {
      // Not the parser's own words: they quote the line, which may hold a secret.
      return Effect.fail(new UsageError({ message: `stdin:${l.line}: not valid JSON (each line is one JSON string, such as "some text")` }))
    }
    if (typeof text !== "string") {
      return Effect.fail(new UsageError({ message: `stdin:${l.line}: expected a JSON string, got ${text === null ? "null" : typeof text}` }))
    }
    return Effect.succeed(text)
  })

const scanLine = (l: SplitLine, options: RepeatOptions): Effect.Effect<void, UsageError> =>
  Effect.gen(function* () {
    if (!l.capped && l.text.trim() === "") return
    const text = yield* lineText(l)
    if (l.capped) {
      yield* Console.error(`stdin:${l.line}: line of ${l.bytes} bytes is longer than input.maxLineBytes: only its first ${Buffer.byteLength(l.text)} bytes were scanned`)
    }
    const r = scanRepetition(text, options)
    yield* Console.log(JSON.stringify({ repeat: r.repeat, token: r.token, period: r.period, long: r.long }))
  })

/** Scans each stdin line as one JSON-string document, printing one verdict per line as it goes. */
export const scanJsonLines = (options: RepeatOptions, maxLineBytes: number): Effect.Effect<void, UsageError> =>
  Effect.gen(function* () {
    const splitter = new LineSplitter(maxLineBytes)
    yield* Stream.runForEach(stdinBytes, (chunk) => Effect.forEach(splitter.push(chunk), (l) => scanLine(l, options), { discard: true }))
    yield* Effect.forEach(splitter.end(), (l) => scanLine(l, options), { discard: true })
  })
