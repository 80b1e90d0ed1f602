/**
 * One incident per episode: a loop or stall detector that raises the same action again within
 * `gap` steps of its last one is still in the same episode, so the repeat is not filed (the
 * episode's end moves on with it). A different action is an escalation and always goes through,
 * and so does anything that ends a live turn (a pause, a stop, an exit): the report must name it.
 */
import type { IncidentKind } from "./incident-kind.js"

export interface ThrottledIncident {
  readonly step: number
  readonly detector: string
  readonly action: string
  readonly kind: IncidentKind
}

export const DEFAULT_EPISODE_GAP = 5

const ENDS_TURN = /^(?:pause|stop|terminate|exit:)/

/** Admits the first incident of an episode and each escalation; drops same-action repeats within the gap. */
export class IncidentThrottle {
  private readonly last = new Map<string, { step: number; action: string }>()

  constructor(
    private readonly gap = DEFAULT_EPISODE_GAP,
    /** In shadow mode nothing ends, so a repeated pause is a repeat like any other. */
    private readonly shadow = false
  ) {}

  admit(incident: ThrottledIncident): boolean {
    if (incident.kind !== "loop" && incident.kind !== "stall") return true
    if (!this.shadow && ENDS_TURN.test(incident.action)) return true
    const prev = this.last.get(incident.detector)
    this.last.set(incident.detector, { step: incident.step, action: incident.action })
    return prev === undefined || prev.action !== incident.action || incident.step - prev.step > this.gap
  }
}
