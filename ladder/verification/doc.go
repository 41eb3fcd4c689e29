// Package verification is stage 3 of the ladder: six adversaries, each in
// a round of its own, look for an executable test that passes on State A
// and fails on the submission (HARNESS.md §4.3; the paper's section 2.3,
// "Agentic Verification").
//
// [Run] plays one round per adversary, one after another. Each round gets
// a fresh [Sandbox] ([Container]: a sandbox of the verification image per
// tree, a container in the ladder, a private folder and user on this
// machine with --host) whose two salted working trees start from pristine
// copies. The round is an [agent.Run] of
// the adversary's model with the read-only toolbox over views of both
// trees, a try_test tool that runs a candidate on both trees, and a report
// tool that ends the round.
//
// A candidate runs as the task's candidate_command with the role as its
// last argument and nothing else naming the tree: the paths are salted, the
// contract environment is scrubbed ([CandidateEnv]). A claimed candidate
// becomes a break only when the adjudication upholds it: both trees could
// be tested (a fault exit code on either side makes it invalid), it passes
// on State A and fails on the submission, it reproduces reruns times, and
// the adjudicator model rules it within the scope's allow and deny items.
// An adjudicator that cannot be reached makes the round an error (to be
// re-run), never a survival; so does a round whose tool calls mostly
// failed. The result is a [result.Stage] with one check per round, which
// the scorer pays 10 points per survivor.
package verification
