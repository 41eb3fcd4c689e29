// Package kinds is srb's in-image helper: it runs the declarative module
// kinds of a task (build, command, http, tree, symbols, digests,
// provenance) from a [behavioural.Plan], and records what it observes or
// compares it with the truth recorded from State A.
//
// cmd/srb-helper is this package behind a thin main, built static
// (CGO_ENABLED=0) so it can be copied into the behavioural and
// verification images; srb itself runs it as the hidden command
// "srb helper" for host runs.
//
// Every observation is a value under a check id (a case id and an aspect:
// "empty/stdout", "empty/exit"). In record mode each one is written to the
// observations file and reported as a passing "recorded" check; in
// identity and check modes each one is compared with its truth with
// go-cmp, and a failing check carries a one-line summary of the
// difference ("stdout: want \"1 3 14\\n\", got \"1 3 15\\n\"") and the full
// go-cmp diff as its detail.
package kinds
