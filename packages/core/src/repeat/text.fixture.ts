/**
 * Generated text for the repetition suites: a seeded generator, so every shape is built here,
 * not copied from a real trace, and the same on every run. Test-only (not exported by the package).
 */

/** A deterministic generator of numbers in [0, 1). */
export const rng = (seed: number) => () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0
  return ((seed ^ (seed >>> 13)) >>> 0) / 2 ** 32
}

const VOCAB = "the a file test value check output parser token we should look again at config module error line function result maybe because then so which expected actual return call element node tree render".split(" ")

/** `n` words drawn from a small vocabulary of agent prose. */
export const words = (r: () => number, n: number): string => Array.from({ length: n }, () => VOCAB[Math.floor(r() * VOCAB.length)]!).join(" ")

/** Loop-free prose: `sentences` sentences of 8 to 19 words. */
export const prose = (seed: number, sentences: number): string => {
  const r = rng(seed)
  return Array.from({ length: sentences }, () => words(r, 8 + Math.floor(r() * 12)) + ".").join(" ")
}
