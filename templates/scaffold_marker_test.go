package templates_test

import (
	"testing"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/templates"
)

// TestMarkerAgrees: srb new writes the marker srb validate looks for.
func TestMarkerAgrees(t *testing.T) {
	if templates.Marker != task.ScaffoldMarker {
		t.Fatalf("templates.Marker %q, task.ScaffoldMarker %q", templates.Marker, task.ScaffoldMarker)
	}
}
