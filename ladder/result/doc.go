// Package result reads and writes the grader's contracts: the stage-result
// envelope ("swerefactor.stage-result/1"), the module-result JSON a
// behavioural module writes, the verdict (score.json, "swerefactor.score/1")
// and reward.json, wire-compatible with the earlier Python harness
// (HARNESS.md §3.5–§3.8).
//
// Wire compatibility means the same field names, field order, omit-if-unset
// rules, rounding (Python's round, ties to even) and number spelling
// (Python's float repr, so 1.0 stays "1.0"); files are written with a
// two-space indent, ASCII-only, with a trailing newline. Free-form metadata
// maps are written with sorted keys. Every file read or written is validated
// against its JSON Schema from package schema; violations are
// *schema.ValidationError with File set.
//
// Writes are atomic: a ".tmp-*" file in the destination directory, then a
// rename. A stage result is stamped with the harness [Fingerprint] once,
// when [NewStage] creates it; reading copies the stamp verbatim.
package result
