package telemetry

import (
	"errors"
	"reflect"
	"testing"

	"github.com/swe-refactor-bench/srb/schema/contract"
)

// FuzzParse holds telemetry's reader of score.json to its promise: it
// either refuses the bytes (a contract.ValidationError: not one JSON object,
// or a key written twice) or projects them, the same way every time, into
// a Telemetry that either marshals into a valid telemetry.json or is
// refused by Marshal's own validation (values are copied verbatim, so a
// score.json with a text where a count belongs cannot be written out).
// Seeds: testdata/fuzz/FuzzParse/.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"task":"t","metadata":{"verification":{"rounds":[{"adversary":"a01","usage":{"calls":4}}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tm, err := Parse(data)
		if err != nil {
			var ve *contract.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("refused without saying where: %v", err)
			}
			return
		}
		again, _ := Parse(data)
		if !reflect.DeepEqual(tm, again) {
			t.Fatal("two readings of the same bytes differ")
		}
		tm.Model, tm.Run = "m", "r"
		if tm.Task == "" {
			tm.Task = "t"
		}
		b, err := tm.Marshal()
		if err != nil {
			var ve *contract.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("marshal failed without a contract error: %v", err)
			}
			return
		}
		if err := contract.ValidateBytes(contract.Telemetry, b); err != nil {
			t.Fatalf("marshalled telemetry breaks the contract: %v", err)
		}
	})
}
