/**
 * Every readline the CLI opens on a terminal goes through here (chat's prompt, the shell question,
 * the approval and pause questions), so that a paste is fast in each of them, not only in the first.
 *
 * Why: readline's keypress decoder is installed once per input stream, and it tells only the
 * interface it was installed for that a paste is under way (`isCompletionEnabled = false`: the
 * pasted characters are then appended as they come). Every later interface on the same stream
 * never hears it and measures the whole line again for each pasted character: quadratic (16 KB
 * took 23 s, and Ctrl-C or SIGTERM waited behind it). In chat every turn opens a new interface.
 * So the decoder is installed here, once, for a stand-in that passes the word on to the interface
 * open on that stream now (`emitKeypressEvents(stream, interface)`: the interface "for which
 * autocompletion is disabled when copy-pasted input is detected").
 */
import { createInterface, emitKeypressEvents, type Interface, type ReadLineOptions } from "node:readline"
import type { Readable } from "node:stream"

/** The interface reading each stream now (the last opened and not yet closed). */
const openOn = new WeakMap<Readable, Interface>()
const relayed = new WeakSet<Readable>()

type Completing = { isCompletionEnabled: boolean }

/** The stand-in the decoder reports a paste to: it forwards to the interface open now. */
const pasteRelay = (input: Readable): Completing => ({
  get isCompletionEnabled() {
    const rl = openOn.get(input) as unknown as Completing | undefined
    return rl?.isCompletionEnabled ?? true
  },
  set isCompletionEnabled(value: boolean) {
    const rl = openOn.get(input) as unknown as Completing | undefined
    if (rl !== undefined) rl.isCompletionEnabled = value
  }
})

/** A terminal readline on `options.input` that is told about pastes like the first one on it. */
export const openTerminalReadline = (options: ReadLineOptions & { readonly input: Readable }): Interface => {
  const { input } = options
  if (!relayed.has(input)) {
    relayed.add(input)
    // A no-op if a decoder is already installed on the stream (by readline code outside this module).
    emitKeypressEvents(input, pasteRelay(input) as unknown as Interface)
  }
  const rl = createInterface({ ...options, terminal: true })
  openOn.set(input, rl)
  rl.once("close", () => {
    if (openOn.get(input) === rl) openOn.delete(input)
  })
  return rl
}
