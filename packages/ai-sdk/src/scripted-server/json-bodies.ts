/**
 * The non-streaming JSON bodies: a whole chat completion folded from a stream script, OpenAI-style
 * error objects, and the model list.
 */
import { defaultFinish, type CompletionIdentity } from "./sse-events.js";
import type { StreamResponse } from "./types.js";

/**
 * Folds a stream script into one `chat.completion`. Text and reasoning are concatenated, tool calls
 * keep their whole argument string; `raw` chunks have no JSON equivalent and are left out.
 */
export function completionBody(response: StreamResponse, who: CompletionIdentity): object {
  let text = "";
  let reasoning = "";
  const toolCalls: object[] = [];
  for (const chunk of response.chunks) {
    if ("text" in chunk) text += chunk.text;
    else if ("reasoning" in chunk) reasoning += chunk.reasoning;
    else if ("toolCall" in chunk) {
      const { id, name, arguments: args } = chunk.toolCall;
      toolCalls.push({ id, type: "function", function: { name, arguments: args } });
    }
  }
  const message: Record<string, unknown> = { role: "assistant", content: text.length > 0 ? text : null };
  if (reasoning.length > 0) message[response.reasoningField ?? "reasoning_content"] = reasoning;
  if (toolCalls.length > 0) message["tool_calls"] = toolCalls;

  const finish = response.finish === undefined ? defaultFinish(response.chunks) : response.finish;
  const body: Record<string, unknown> = {
    id: who.id,
    object: "chat.completion",
    created: who.created,
    model: who.model,
    choices: [{ index: 0, message, finish_reason: finish }],
  };
  if (response.usage !== undefined) {
    const { prompt_tokens, completion_tokens } = response.usage;
    body["usage"] = { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
  }
  return body;
}

/** The `type`/`code` pair OpenAI uses for common statuses, so clients see familiar errors. */
function errorKind(status: number): { type: string; code: string | null } {
  if (status === 400) return { type: "invalid_request_error", code: null };
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
  if (status === 403) return { type: "permission_error", code: null };
  if (status === 404) return { type: "invalid_request_error", code: "model_not_found" };
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" };
  if (status >= 500) return { type: "server_error", code: null };
  return { type: "invalid_request_error", code: null };
}

/** An OpenAI-style error body (`{ error: { message, type, code } }`) for an HTTP status. */
export function openAIErrorBody(status: number, message?: string, type?: string): object {
  const kind = errorKind(status);
  return {
    error: {
      message: message ?? `scripted error ${status}`,
      type: type ?? kind.type,
      param: null,
      code: type ?? kind.code,
    },
  };
}

/** The `GET /v1/models` body listing the scripted model. */
export function modelsBody(modelId: string, created: number): object {
  return { object: "list", data: [{ id: modelId, object: "model", created, owned_by: "loopguard" }] };
}
