/**
 * Which recorded step the replay is on. The replay LLM moves it at every request; the replay
 * tools read it, so a result is looked up in the step that made the call even when call ids
 * repeat across steps (many agents number them per step) or a cut stream skipped some calls.
 */
export class ReplayCursor {
  /** The step being streamed; -1 before the first request. */
  step = -1
}
