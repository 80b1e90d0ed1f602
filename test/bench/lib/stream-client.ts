/**
 * The proxy bench's load client, in a process of its own: N concurrent streamed Chat Completions
 * requests to each base URL in turn (`--rounds` times, the bases alternating), and per content
 * event the delay from the upstream's send time carried in the event (`"sent_at"`, see
 * stamped-upstream.ts) to the moment this process read it; per request the time to the first
 * byte. Prints one JSON line: `{ "<base>": { "firstByte": [ms…], "delays": [ms…], "cpuMs": ms, "wallMs": ms } }`
 * (`cpuMs`: this process's own CPU while it read that base's streams, so the bench can say how much
 * of the machine the load itself took).
 *
 * `--hold`: opens the N streams, prints "held" once each has read its first 5 events, and keeps
 * them open until the process is ended (memory per open stream).
 *
 * `--steady MS --spread MS`: a fleet's load rather than a burst. N clients each start their next
 * stream the moment one ends, for `--steady` ms; client i starts its first at i/N of `--spread`
 * (one stream's length spreads the starts over it), so N streams stay open with their starts apart.
 *
 *   stream-client.ts --bases URL[,URL…] --streams N [--rounds R] [--hold | --steady MS --spread MS]
 */
import { wallMs } from "./stamped-upstream.js"

export interface StreamTimings {
  readonly firstByte: Array<number>
  readonly delays: Array<number>
  /** This process's CPU (user + system) and the wall time while it read this base's streams, in ms. */
  cpuMs?: number
  wallMs?: number
}

/** Runs `read` for one base and adds the CPU and wall time it took to that base's timings. */
const timed = async (into: StreamTimings, read: () => Promise<unknown>): Promise<void> => {
  const cpu = process.cpuUsage()
  const start = wallMs()
  await read()
  const used = process.cpuUsage(cpu)
  into.cpuMs = (into.cpuMs ?? 0) + (used.user + used.system) / 1000
  into.wallMs = (into.wallMs ?? 0) + wallMs() - start
}

const STAMP = '"sent_at":'

/** Readers of held streams, kept referenced so their connections stay open. */
const kept: Array<ReadableStreamDefaultReader<Uint8Array>> = []

/** The send time written into one event, or NaN when it carries none. */
const stampOf = (event: string): number => {
  const at = event.lastIndexOf(STAMP)
  return at === -1 ? NaN : parseFloat(event.slice(at + STAMP.length))
}

const request = (base: string, content: string, signal?: AbortSignal): Promise<Response> =>
  fetch(`${base}/chat/completions`, {
    method: "POST",
    ...(signal !== undefined ? { signal } : {}),
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "scripted-model", stream: true, messages: [{ role: "user", content }] })
  })

/** One stream read to its end (or, with `stopAfter`, until that many stamped events arrived). */
const readStream = async (base: string, into: StreamTimings, content: string, stopAfter = Infinity): Promise<void> => {
  const t0 = wallMs()
  const res = await request(base, content)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let pending = ""
  let first = true
  let events = 0
  for (let c = await reader.read(); !c.done; c = await reader.read()) {
    const now = wallMs()
    if (first) into.firstByte.push(now - t0)
    first = false
    pending += decoder.decode(c.value, { stream: true })
    for (let cut = pending.indexOf("\n\n"); cut !== -1; cut = pending.indexOf("\n\n")) {
      const sent = stampOf(pending.slice(0, cut))
      pending = pending.slice(cut + 2)
      if (Number.isNaN(sent)) continue
      into.delays.push(now - sent)
      if (++events >= stopAfter) return void kept.push(reader)
    }
  }
}

/** N clients back to back for `durationMs`, their first starts spread over `spreadMs`. */
const steady = async (base: string, into: StreamTimings, streams: number, spreadMs: number, durationMs: number): Promise<void> => {
  const end = wallMs() + durationMs
  await Promise.all(
    Array.from({ length: streams }, async (_, i) => {
      await new Promise((r) => setTimeout(r, (i * spreadMs) / streams))
      for (let k = 0; wallMs() < end; k++) await readStream(base, into, `steady ${i}-${k}`)
    })
  )
}

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(name)
  return at === -1 ? undefined : process.argv[at + 1]
}

if (import.meta.main) {
  const bases = (option("--bases") ?? "").split(",").filter((b) => b !== "")
  const streams = Number(option("--streams") ?? 1)
  const rounds = Number(option("--rounds") ?? 1)
  if (bases.length === 0 || !(streams > 0) || !(rounds > 0)) {
    process.stderr.write("stream-client: give --bases URL[,URL…] --streams N [--rounds R]\n")
    process.exit(2)
  }
  if (process.argv.includes("--hold")) {
    const held: StreamTimings = { firstByte: [], delays: [] }
    // Each stream stays open: its reader stops reading after 5 events, and the process is ended to close them.
    await Promise.all(Array.from({ length: streams }, () => readStream(bases[0]!, held, "hold", 5)))
    process.stdout.write("held\n")
    setInterval(() => {}, 60_000)
  } else if (option("--steady") !== undefined) {
    const out: Record<string, StreamTimings> = Object.fromEntries(bases.map((b) => [b, { firstByte: [], delays: [] }]))
    for (const base of bases) await timed(out[base]!, () => steady(base, out[base]!, streams, Number(option("--spread") ?? 0), Number(option("--steady"))))
    process.stdout.write(`${JSON.stringify(out)}\n`)
  } else {
    const out: Record<string, StreamTimings> = Object.fromEntries(bases.map((b) => [b, { firstByte: [], delays: [] }]))
    for (let r = 0; r < rounds; r++)
      for (const base of bases) await timed(out[base]!, () => Promise.all(Array.from({ length: streams }, (_, i) => readStream(base, out[base]!, `write ${r}-${i}`))))
    process.stdout.write(`${JSON.stringify(out)}\n`)
  }
}
