// Package srb carries the part of srb's own source that srb-helper is
// built from, so an installed srb outside its checkout can still build
// the helper into stage images (internal/image). The build is pinned (the
// go directive's Go release, CGO off, -trimpath, no VCS stamp, no build
// id), so the helper built from this copy and the one built from a
// checkout of the same commit are the same bytes.
package srb

import "embed"

// HelperSource holds go.mod, go.sum and every file of the packages
// ./cmd/srb-helper is built from (their tests too; a build skips them).
// TestHelperSourceComplete (internal/image) fails when the helper comes
// to import a package or embed a file that is not listed here.
//
//go:embed go.mod go.sum
//go:embed cmd/srb-helper/*.go
//go:embed schema/contract/*.go schema/contract/json/*.json
//go:embed ladder/internal/py/*.go ladder/result/*.go ladder/proc/*.go ladder/copytree/*.go ladder/cgroup/*.go ladder/progsep/*.go ladder/hostuser/*.go
//go:embed ladder/behavioural/*.go ladder/behavioural/kinds/*.go
var HelperSource embed.FS
