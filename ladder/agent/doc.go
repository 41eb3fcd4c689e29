// Package agent is the conversation loop stages 1 and 3 share, and the
// toolbox it offers the model (HARNESS.md §4.0 "Loop", §4.1.2).
//
// [Run] drives one [models.Driver] until the model calls the stage's submit
// tool, or its wall-clock budget runs out: it runs the tool calls of each
// turn, appends their results, nudges a model that answers without a tool
// call once and then calls the run abandoned, resumes a retryable model
// failure a bounded number of times within the budget, and writes every
// step to a JSONL transcript flushed per line (schema
// "transcript-record", HARNESS.md §3.10).
//
// A [Toolbox] gives the model read access to named roots (State A as
// "original", the submission as "workspace"): list_dir, fetch_source,
// search, diff, and run for an allowlist of programs through a [Runner].
// Every path is opened through an [os.Root], so nothing outside a root,
// through a symbolic link or otherwise, can be read. [Toolbox.Ground]
// re-checks the evidence a model cites.
package agent
