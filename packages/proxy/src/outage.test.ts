import { describe, expect, test } from "bun:test"
import { OutageMemo } from "./outage.js"

describe("OutageMemo", () => {
  test("a mark holds until its time, is ended by an answer, and a later mark replaces it", () => {
    const memo = new OutageMemo()
    expect(memo.active("u", 0)).toBe(false)
    memo.mark("u", 100, 0)
    expect([memo.active("u", 50), memo.active("other", 50)]).toEqual([true, false])
    expect(memo.active("u", 100)).toBe(false)
    expect(memo.size).toBe(0)
    memo.mark("u", 100, 0)
    memo.clear("u")
    expect(memo.active("u", 50)).toBe(false)
    memo.mark("u", 100, 0)
    memo.mark("u", 300, 0)
    expect(memo.active("u", 200)).toBe(true)
  })

  test("many keys (a client key each) keep at most 1024 marks: the expired go first, then the oldest", () => {
    const memo = new OutageMemo()
    for (let i = 0; i < 1024; i++) memo.mark(`k${i}`, i < 10 ? 5 : 1_000, 0)
    memo.mark("new", 1_000, 10)
    expect(memo.size).toBe(1015)
    for (let i = 0; i < 20; i++) memo.mark(`more${i}`, 1_000, 10)
    expect(memo.size).toBe(1024)
    expect(memo.active("k10", 20)).toBe(false)
    expect(memo.active("more19", 20)).toBe(true)
  })
})
