package result

import (
	"errors"
	"fmt"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
	"github.com/swe-refactor-bench/srb/schema"
)

// ErrModuleResult is wrapped by [ParseModuleResult] when a module's result
// file is not JSON or not an object or list; the module then recorded no
// checks.
var ErrModuleResult = errors.New("unusable module result")

// ModuleResult is what one behavioural (or scan) module reported, collected
// by the rules of HARNESS.md §3.5. Apply it to the module's [Unit] with
// [ModuleResult.Apply] and append Checks to the stage.
type ModuleResult struct {
	// Checks are the collected checks: ids rewritten to "<module>/<id>",
	// Unit set to the module id, Required cleared, weight-0 rows and
	// duplicate ids dropped.
	Checks []Check
	// Status is "error" or "timeout" when the module's top-level status
	// said so (it overrides the unit's status), else "".
	Status string
	// Summary accompanies Status: the module's "summary" or "error" text,
	// at most 1000 characters.
	Summary string
	// Metadata is what goes into the unit's metadata: the module's own
	// "metadata" and "notes" (when non-empty), "unscored_observations" (the
	// count of weight-0 rows dropped, when any) and "result_error" (when the
	// file was unusable).
	Metadata map[string]any
}

// Apply merges m into u: metadata keys are copied over u's, and a
// top-level error/timeout status overrides u's status and summary.
func (m ModuleResult) Apply(u *Unit) {
	if len(m.Metadata) > 0 && u.Metadata == nil {
		u.Metadata = map[string]any{}
	}
	for k, v := range m.Metadata {
		u.Metadata[k] = v
	}
	if m.Status != "" {
		u.Status = m.Status
		u.Summary = m.Summary
	}
}

// ParseModuleResult collects the checks a module with id moduleID wrote to
// $SRB_RESULT (HARNESS.md §3.5). data may be a full stage envelope, an
// object {"checks": [...]}, or a bare list of checks.
//
// Collection rules: each check is read leniently (id falls back to "name",
// then "<unnamed>"; an unknown verdict is "error"; an unparsable weight is 1
// and a negative one 0; non-object evidence items become {"note": …}); a
// check with weight ≤ 0 is dropped and counted as unscored_observations;
// required is forced false; unit is set to moduleID; the id becomes
// "<moduleID>/<id>" and a repeated id is dropped; non-object entries are
// skipped. Top-level "metadata" and "notes" are carried into the unit's
// metadata when non-empty, and a top-level status of exactly "error" or
// "timeout" overrides the unit's.
//
// Data that is not JSON, or not an object or list, yields a result with
// no checks and Metadata["result_error"] set, together with an error
// wrapping [ErrModuleResult]; the caller still applies the result, so the
// unit records why. A document that parses but does not satisfy the
// "module-result" JSON Schema is collected all the same (the rules above
// are the contract, and are more lenient than a schema can say) and the
// violation is recorded as Metadata["result_schema_error"].
func ParseModuleResult(moduleID string, data []byte) (ModuleResult, error) {
	out := ModuleResult{Checks: []Check{}, Metadata: map[string]any{}}
	doc, err := decodeJSON(data)
	if err != nil {
		out.Metadata["result_error"] = "JSONDecodeError: " + err.Error()
		return out, fmt.Errorf("parse module result of %s: %w: %v", moduleID, ErrModuleResult, err)
	}
	if list, ok := doc.([]any); ok {
		doc = map[string]any{"checks": list}
	}
	raw, ok := doc.(map[string]any)
	if !ok {
		out.Metadata["result_error"] = "the result is not an object"
		return out, fmt.Errorf("parse module result of %s: %w: the result is not an object", moduleID, ErrModuleResult)
	}
	var ve *schema.ValidationError
	if err := schema.Validate(schema.ModuleResult, doc); errors.As(err, &ve) {
		out.Metadata["result_schema_error"] = ve.Error()
	}

	for _, key := range []string{"metadata", "notes"} {
		if v := raw[key]; py.Truthy(v) {
			out.Metadata[key] = v
		}
	}
	if st, ok := raw["status"].(string); ok && (st == UnitError || st == UnitTimeout) {
		out.Status = st
		text := raw["summary"]
		if !py.Truthy(text) {
			text = raw["error"]
		}
		if !py.Truthy(text) {
			text = ""
		}
		out.Summary = py.Head(py.Str(text), 1000)
	}

	seen := map[string]bool{}
	dropped := 0
	for _, entry := range py.AsList(raw["checks"]) {
		m, ok := entry.(map[string]any)
		if !ok {
			continue
		}
		c := checkFromMap(m)
		if c.Weight <= 0 {
			dropped++
			continue
		}
		c.Required = false
		c.Unit = moduleID
		c.ID = moduleID + "/" + c.ID
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		out.Checks = append(out.Checks, c)
	}
	if dropped > 0 {
		out.Metadata["unscored_observations"] = dropped
	}
	return out, nil
}
