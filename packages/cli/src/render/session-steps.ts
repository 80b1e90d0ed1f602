/**
 * Whose step an event belongs to. A sub-agent runs inside one of the turn's tool calls, in a session
 * of its own (`<parent>/task-<step>-<n>`, docs/run-loop.md) that counts its steps from 0 again, so the
 * renderer numbers each session's steps apart and marks a sub-agent's lines. The turn's session is
 * the first one heard from after `reset`; any other is a sub-agent, one level below the open step's
 * session it was started from.
 */

export interface SessionStep {
  /** 0: the turn's own session; 1: a sub-agent of it; 2: a sub-agent's sub-agent. */
  readonly depth: number
  /** The session's step now (the last one started; 0 before any), counted from 0. */
  readonly step: number
}

export interface SessionSteps {
  readonly of: (sessionId: string | undefined) => SessionStep
  readonly started: (sessionId: string | undefined, step: number) => void
  readonly finished: (sessionId: string | undefined) => void
  /** The innermost session with a step open (the one streaming or running a tool now), if any. */
  readonly current: () => SessionStep | null
  /** A new turn: the next session heard from is the turn's own. */
  readonly reset: () => void
}

export const makeSessionSteps = (): SessionSteps => {
  let root: string | null = null
  const depths = new Map<string, number>()
  const steps = new Map<string, number>()
  /** The sessions with a step open, innermost last. */
  const open: Array<string> = []

  const depthOf = (id: string): number => {
    const known = depths.get(id)
    if (known !== undefined) return known
    root ??= id
    // The parent is the open session whose id this one extends; else the innermost open one.
    const parent = [...open].reverse().find((o) => id.startsWith(`${o}/`)) ?? open[open.length - 1]
    const depth = id === root ? 0 : parent === undefined ? 1 : (depths.get(parent) ?? 0) + 1
    depths.set(id, depth)
    return depth
  }
  const close = (id: string) => {
    const at = open.lastIndexOf(id)
    if (at >= 0) open.splice(at, 1)
  }
  const of = (sessionId: string | undefined): SessionStep => {
    const id = sessionId ?? ""
    return { depth: depthOf(id), step: steps.get(id) ?? 0 }
  }
  return {
    of,
    started: (sessionId, step) => {
      const id = sessionId ?? ""
      depthOf(id)
      steps.set(id, step)
      close(id)
      open.push(id)
    },
    finished: (sessionId) => close(sessionId ?? ""),
    current: () => {
      const id = open[open.length - 1]
      return id === undefined ? null : of(id)
    },
    reset: () => {
      root = null
      depths.clear()
      steps.clear()
      open.length = 0
    }
  }
}
