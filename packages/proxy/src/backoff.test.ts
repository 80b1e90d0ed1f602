/**
 * Backoff boards: one process's, and the told board of a proxy worker, whose holds go to the
 * others and whose reads see the holds it was told.
 */
import { expect, test } from "bun:test"
import { memoryBackoff, toldBackoff, waitForTurn } from "./backoff.js"

test("a board keeps the later of two holds per upstream", async () => {
  const board = memoryBackoff()
  await board.hold("a", 2_000)
  await board.hold("a", 1_000)
  expect(await board.until("a")).toBe(2_000)
  expect(await board.until("b")).toBe(0)
})

test("a told board passes its holds on and keeps the ones it hears", async () => {
  const told: Array<[string, number]> = []
  const one = toldBackoff((upstream, untilMs) => told.push([upstream, untilMs]))
  const other = toldBackoff(() => {})
  await one.hold("http://u/v1", 5_000)
  expect(await one.until("http://u/v1")).toBe(5_000)
  expect(told).toEqual([["http://u/v1", 5_000]])
  // What the supervisor does with it: the other worker hears it, and does not tell it again.
  for (const [upstream, untilMs] of told) other.heard(upstream, untilMs)
  expect(await other.until("http://u/v1")).toBe(5_000)
  other.heard("http://u/v1", 1_000)
  expect(await other.until("http://u/v1")).toBe(5_000)
  expect(told.length).toBe(1)
})

test("a request waits out a hold another worker was told", async () => {
  const board = toldBackoff(() => {})
  const started = Date.now()
  board.heard("u", started + 150)
  await waitForTurn(board, "u")
  expect(Date.now() - started).toBeGreaterThanOrEqual(140)
})
