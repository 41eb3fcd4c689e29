package result

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

// ErrModuleResult is wrapped by [ParseModuleResult] when a module's result
// file is not JSON, not an object or list, or is refused (a repeated key,
// a check without an id, a repeated id); the module then recorded no
// checks.
var ErrModuleResult = errors.New("unusable module result")

// ModuleResult is what one behavioural (or scan) module reported, collected
// by the rules of HARNESS.md §3.5. Apply it to the module's [Unit] with
// [ModuleResult.Apply] and append Checks to the stage.
type ModuleResult struct {
	// Checks are the collected checks: ids rewritten to "<module>/<id>",
	// Unit set to the module id, Required cleared, weight-0 rows dropped.
	Checks []Check
	// Status is "error" or "timeout" when the module's top-level status
	// said so (it overrides the unit's status), else "".
	Status string
	// Summary accompanies Status: the module's "summary" or "error" text,
	// at most 1000 characters.
	Summary string
	// Metadata is what goes into the unit's metadata: the module's own
	// "metadata" and "notes" (when non-empty), "unscored_observations" (the
	// count of weight-0 rows dropped, when any), "unscored_findings" (those
	// rows themselves, at most [UnscoredFindingsLimit]: each {"id", "verdict",
	// "summary"} and "detail" when it has one) and "result_error" (when the
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

// UnscoredFindingsLimit bounds the weight-0 rows of one module kept as
// findings (unscored_findings); past it they are only counted.
const UnscoredFindingsLimit = 200

// ParseModuleResult collects the checks a module with id moduleID wrote to
// $SRB_RESULT (HARNESS.md §3.5). data may be a full stage envelope, an
// object {"checks": [...]}, or a bare list of checks.
//
// Collection rules: each check is read leniently (an unknown verdict is
// "error"; an unparsable weight is 1 and a negative one 0; non-object
// evidence items become {"note": …}); a check with weight ≤ 0 is dropped
// from the checks, counted as unscored_observations and kept, as a finding
// that decides nothing, in unscored_findings; required is forced false; unit is
// set to moduleID; the id becomes "<moduleID>/<id>". Top-level "metadata"
// and "notes" are carried into the unit's metadata when non-empty, and a
// top-level status of exactly "error" or "timeout" overrides the unit's.
//
// Unlike the earlier harness, which dropped what it could not attribute,
// srb refuses a result that could hide a verdict: a repeated object key at
// any depth (two "checks" lists, two verdicts of one check), a "checks"
// that is neither a list nor null, an entry of it that is not an object,
// a check with no id (neither a non-empty "id" nor a "name"), and a
// repeated id. A refused result, like data that is not JSON or not an
// object or list, yields no checks and Metadata["result_error"] naming
// the JSON pointer of the offending field, together with an error
// wrapping [ErrModuleResult]; the caller still applies the result, so the
// unit records why, and a module that recorded nothing is an error, never
// a pass. A document that parses but does not otherwise satisfy the
// "module-result" JSON Schema is collected all the same (the rules above
// are the contract, and are more lenient than a schema can say) and the
// violation is recorded as Metadata["result_schema_error"].
func ParseModuleResult(moduleID string, data []byte) (ModuleResult, error) {
	refuse := func(msg string) (ModuleResult, error) {
		out := ModuleResult{Checks: []Check{}, Metadata: map[string]any{"result_error": msg}}
		return out, fmt.Errorf("parse module result of %s: %w: %s", moduleID, ErrModuleResult, msg)
	}
	doc, err := contract.DecodeStrict(contract.ModuleResult, data)
	if err != nil {
		var ve *contract.ValidationError
		if errors.As(err, &ve) && ve.Msg != "" && ve.Pointer == "" && strings.HasPrefix(ve.Msg, "not JSON: ") {
			return refuse("JSONDecodeError: " + strings.TrimPrefix(ve.Msg, "not JSON: "))
		}
		return refuse(err.Error())
	}
	prefix := "/checks"
	if list, ok := doc.([]any); ok {
		doc = map[string]any{"checks": list}
		prefix = ""
	}
	raw, ok := doc.(map[string]any)
	if !ok {
		return refuse("the result is not an object")
	}
	var list []any
	switch x := raw["checks"].(type) {
	case nil:
	case []any:
		list = x
	default:
		return refuse("at /checks: checks is not a list")
	}

	out := ModuleResult{Checks: []Check{}, Metadata: map[string]any{}}
	var ve *contract.ValidationError
	if err := contract.Validate(contract.ModuleResult, doc); errors.As(err, &ve) {
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

	seen := map[string]int{}
	dropped := 0
	findings := []any{}
	for i, entry := range list {
		at := fmt.Sprintf("%s/%d", prefix, i)
		m, ok := entry.(map[string]any)
		if !ok {
			return refuse(fmt.Sprintf("at %s: a check is not an object", at))
		}
		if !py.Truthy(m["id"]) && !py.Truthy(m["name"]) {
			return refuse(fmt.Sprintf("at %s: the check has no id: a check that cannot be named cannot be counted", at))
		}
		c := checkFromMap(m)
		if j, dup := seen[c.ID]; dup {
			return refuse(fmt.Sprintf("at %s/id: check id %q is already used by %s/%d", at, c.ID, prefix, j))
		}
		seen[c.ID] = i
		if c.Weight <= 0 {
			dropped++
			if len(findings) < UnscoredFindingsLimit {
				f := map[string]any{"id": moduleID + "/" + c.ID, "verdict": c.Verdict, "summary": py.Head(c.Summary, 1000)}
				if c.Detail != "" {
					f["detail"] = py.Head(c.Detail, 1000)
				}
				findings = append(findings, f)
			}
			continue
		}
		c.Required = false
		c.Unit = moduleID
		c.ID = moduleID + "/" + c.ID
		out.Checks = append(out.Checks, c)
	}
	if dropped > 0 {
		out.Metadata["unscored_observations"] = dropped
		out.Metadata["unscored_findings"] = findings
	}
	return out, nil
}
