// Package perf holds srb's command-level benchmarks (issue 17): each runs
// an srb command as a process, interleaved with the baseline the issue
// names (the cue tool on the same files; gzip -dc | sha256sum over the
// same archives), and reports the CPU-time ratio, the CPU time per task
// and target-met (1 when the target holds). docs/OPERATIONS.md
// "Performance" lists the targets, the latest figures and the commands.
// The package has no code of its own beyond this comment.
package perf
