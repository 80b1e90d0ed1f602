/**
 * Work written once as a generator (each `yield` a point where it may pause) and run two ways: to
 * its end at once, or in slices of about `sliceMs` with the event loop served between them. The
 * proxy judges a request's turn on the event loop every stream shares; a long turn judged afresh
 * (a new process, a history that changed) held every other stream for as long as it took: a few
 * milliseconds per hundred steps, seconds for a turn of tens of thousands.
 */

/** Runs `work` to its end without pausing. */
export const runToEnd = <A>(work: Generator<void, A>): A => {
  for (;;) {
    const step = work.next()
    if (step.done === true) return step.value
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Runs `work` to its end, letting the event loop run whenever a slice has taken `sliceMs`. */
export const runSliced = async <A>(work: Generator<void, A>, sliceMs: number): Promise<A> => {
  let sliceStart = performance.now()
  for (;;) {
    const step = work.next()
    if (step.done === true) return step.value
    if (performance.now() - sliceStart < sliceMs) continue
    await nextTurn()
    sliceStart = performance.now()
  }
}
