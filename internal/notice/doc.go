// Package notice reads the licensing of each task's State A out of its
// archive and renders the repository's NOTICE from it (issue #3).
//
// [Analyse] reads a canonical State A archive (a .tar.gz with one top
// folder) without extracting it: the licence files at the top level and
// deeper, the SPDX expression they state (found with
// github.com/google/licensecheck, plus a few phrases and licence
// exceptions it does not match on its own), the copyright statements,
// the files under terms other than the release's own (from their headers,
// or named by a licence file) and the upstream NOTICE files. [Render]
// turns one [Entry] per task into the NOTICE text, byte for byte the same
// for the same entries in any order. [Check] is the license-found validate
// rule: the expression found equals the one the task declares, compared
// with [Expr.Equal]. [Diff] is the unified diff srb notice --check prints.
//
// HARNESS.md §5 (in ../shared/reference/) describes the earlier harness's
// hand-written NOTICE and its test; this package derives the same
// content from the archives instead.
package notice
