package contract

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeStrict holds DecodeStrict to encoding/json: whatever it
// accepts, the standard decoder reads to the same value, and whatever it
// refuses as a repeated key really repeats one (the standard decoder,
// which keeps the last copy, reads a value with fewer keys than the text
// holds). Seeds: testdata/fuzz/FuzzDecodeStrict/.
func FuzzDecodeStrict(f *testing.F) {
	f.Add([]byte(`{"a":[{"b":1},{"b":2}],"c":{"d":null}}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeStrict("x", data)
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		stdErr := dec.Decode(&want)
		if err != nil {
			if ve, ok := err.(*ValidationError); !ok || ve.Contract != "x" {
				t.Fatalf("error %v is not a ValidationError of the contract", err)
			}
			return
		}
		if stdErr != nil {
			t.Fatalf("accepted what encoding/json refuses: %v", stdErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %#v, encoding/json %#v", got, want)
		}
		if DuplicateKey("x", data) != nil {
			t.Fatal("accepted a repeated key")
		}
	})
}
