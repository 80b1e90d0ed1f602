import { Data } from "effect"

/** Invalid `retry` / `provider.<id>.retry` config; each entry names its path. */
export class RetryConfigError extends Data.TaggedError("RetryConfigError")<{ readonly errors: ReadonlyArray<string> }> {
  override get message() {
    return this.errors.join("\n")
  }
}
