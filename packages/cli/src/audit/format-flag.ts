/** `--format`: which log format a file is in, when detection from its content should be overridden. */
import { TRACE_FORMATS } from "@loopguard/core/trace"
import { Flag } from "effect/cli"

export const formatFlag = Flag.Literals("format", TRACE_FORMATS).pipe(
  Flag.optional,
  Flag.withDescription(`log format of the file(s): ${TRACE_FORMATS.join(", ")} (default: detected from the content)`)
)
