package image

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/solver/pb"
	digest "github.com/opencontainers/go-digest"
)

// Marshal marshals st for linux on this machine's architecture; the
// Definition's bytes depend on st alone.
func Marshal(ctx context.Context, st llb.State, opts ...llb.ConstraintsOpt) (*llb.Definition, error) {
	def, err := st.Marshal(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	return def, nil
}

// Summary renders a Definition as one line per vertex, in the
// definition's order: the op's kind and its name (the task field it comes
// from), then the head's digest. It is what the op-summary golden pins.
func Summary(def *llb.Definition) (string, error) {
	var b strings.Builder
	var head digest.Digest
	for i, dt := range def.Def {
		var op pb.Op
		if err := op.UnmarshalVT(dt); err != nil {
			return "", fmt.Errorf("summary: %w", err)
		}
		dg := digest.FromBytes(dt)
		if i == len(def.Def)-1 {
			// The last op is the output reference; its input is the head.
			if len(op.Inputs) == 1 {
				head = digest.Digest(op.Inputs[0].Digest)
			}
			continue
		}
		name := def.Metadata[dg].Description["llb.customname"]
		fmt.Fprintf(&b, "%-6s %s", opKind(&op), name)
		if len(op.Inputs) > 0 {
			fmt.Fprintf(&b, " <- %d input(s)", len(op.Inputs))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "head %s\n", head)
	return b.String(), nil
}

func opKind(op *pb.Op) string {
	switch o := op.Op.(type) {
	case *pb.Op_Exec:
		return "exec"
	case *pb.Op_Source:
		id := o.Source.Identifier
		if i := strings.Index(id, "://"); i > 0 {
			return id[:i]
		}
		return "source"
	case *pb.Op_File:
		return "file"
	case *pb.Op_Merge:
		return "merge"
	case *pb.Op_Diff:
		return "diff"
	case *pb.Op_Build:
		return "build"
	}
	return "op"
}

// Ops returns the ops of def by digest, for tests and inspection.
func Ops(def *llb.Definition) (map[digest.Digest]*pb.Op, error) {
	m := map[digest.Digest]*pb.Op{}
	for _, dt := range def.Def {
		var op pb.Op
		if err := op.UnmarshalVT(dt); err != nil {
			return nil, fmt.Errorf("ops: %w", err)
		}
		m[digest.FromBytes(dt)] = &op
	}
	return m, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
