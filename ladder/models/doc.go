// Package models talks to the grading models of stages 1 and 3, one turn
// at a time, without tying the benchmark to one vendor (HARNESS.md §4.0
// "Drivers").
//
// A [Driver] takes a [Request] (a system prompt, a conversation in
// Anthropic's block format, the tools offered) and returns one [Turn]: the
// model's prose and the tool calls it asked for. Four drivers exist:
//
//   - "openai": POST {base}/chat/completions with tools and
//     reasoning_effort; the block conversation is translated to chat
//     messages and back. With options.stream the reply is streamed and
//     reassembled, for proxies that end a silent request.
//   - "anthropic": POST {base}/v1/messages, streamed as server-sent events
//     and reassembled, with output_config.effort. A stream that ends
//     without message_stop is a retryable failure, never an answer.
//   - "command": an external program that reads one JSON request on stdin
//     and writes one JSON turn on stdout (docs/LADDER.md "The command
//     protocol"): the way to plug in a gateway or agent srb does not know.
//   - "scripted": replays canned turns from a JSON file, for tests and for
//     smoke-testing a task's prompts without spending a budget.
//
// Every driver retries a retryable failure (statuses 408, 409, 425, 429,
// 500, 502–504, 520–524, 529, a refused-by-filter 400, a dropped
// connection, a truncated stream) with jittered backoff; a body that names
// a context overflow vetoes the retry. A failure is an *[Error] whose
// Retryable field the agent loop reads to decide whether to resume.
// Usage (calls, tokens, credits) is counted per successful call.
//
// Credentials come from the environment by variable name only
// (ANTHROPIC_API_KEY, OPENAI_API_KEY, …); [Preflight] names the missing
// ones before any container starts, and [ForwardedEnv] lists the names a
// stage container is given.
package models
