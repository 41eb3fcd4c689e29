package result

import (
	"bytes"
	"errors"
	"testing"

	"github.com/swe-refactor-bench/srb/schema/contract"
)

// The fuzz targets below hold every contract reader of this package to one
// property: it either refuses its input with an error, or returns a value
// that its writer encodes into a document that validates against the
// contract and that the reader reads back to the same encoding. A reader
// that accepts what it cannot write back has accepted something its
// checks did not understand. Seeds: testdata/fuzz/<target>/ (valid files
// in the earlier harness's shape, and the refused ones of issue 15).

// FuzzParseStage: ParseStage, then Stage's encoding, then ParseStage again.
func FuzzParseStage(f *testing.F) {
	f.Add([]byte(`{"schema":"swerefactor.stage-result/1","stage":"audit","task":"t","status":"ok","started_at":"2026-11-30T09:00:00Z","duration_sec":1.0,"harness":{},"units":[],"checks":[{"id":"g","verdict":"pass","summary":"","weight":1.0,"required":true}],"metadata":{},"notes":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseStage(data)
		if err != nil {
			return
		}
		enc, err := marshalPy(s)
		if err != nil {
			t.Fatalf("accepted, but cannot be written: %v", err)
		}
		if err := contract.ValidateBytes(contract.StageResult, enc); err != nil {
			t.Fatalf("accepted, but its encoding breaks the contract: %v\n%s", err, enc)
		}
		back, err := ParseStage(enc)
		if err != nil {
			t.Fatalf("accepted, but its encoding is refused: %v\n%s", err, enc)
		}
		if again, _ := marshalPy(back); !bytes.Equal(again, enc) {
			t.Fatalf("the encoding does not read back equal:\n%s\n---\n%s", enc, again)
		}
	})
}

// FuzzParseVerdict: ParseVerdict, then Verdict's encoding, then
// ParseVerdict again.
func FuzzParseVerdict(f *testing.F) {
	v := NewVerdict("t", 100)
	v.AuditGate, v.BehaviouralPoints, v.Score, v.StagesRun = GatePass, 40, 40, []string{StageAudit, StageBehavioural}
	seed, _ := marshalPy(v)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseVerdict(data)
		if err != nil {
			return
		}
		enc, err := v.marshalValid("score.json")
		if err != nil {
			t.Fatalf("accepted, but its encoding breaks the contract: %v", err)
		}
		back, err := ParseVerdict(enc)
		if err != nil {
			t.Fatalf("accepted, but its encoding is refused: %v\n%s", err, enc)
		}
		if again, _ := marshalPy(back); !bytes.Equal(again, enc) {
			t.Fatalf("the encoding does not read back equal:\n%s\n---\n%s", enc, again)
		}
	})
}

// FuzzParseReward: ParseReward, then reward.json's encoding, then
// ParseReward again.
func FuzzParseReward(f *testing.F) {
	v := NewVerdict("t", 100)
	seed, _ := marshalReward(Reward(v))
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		flat, err := ParseReward(data)
		if err != nil {
			return
		}
		enc, err := marshalReward(flat)
		if err != nil {
			t.Fatalf("accepted, but cannot be written: %v", err)
		}
		back, err := ParseReward(enc)
		if err != nil {
			t.Fatalf("accepted, but its encoding is refused: %v\n%s", err, enc)
		}
		if again, _ := marshalReward(back); !bytes.Equal(again, enc) {
			t.Fatalf("the encoding does not read back equal:\n%s\n---\n%s", enc, again)
		}
	})
}

// FuzzParseModuleResult: ParseModuleResult, then its checks written back
// as a module result (ids without the module prefix), then
// ParseModuleResult again. A refusal must record why and keep no check.
func FuzzParseModuleResult(f *testing.F) {
	f.Add([]byte(`{"checks":[{"id":"a","verdict":"pass"},{"id":"b","verdict":"fail","weight":0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		mr, err := ParseModuleResult("m", data)
		if err != nil {
			if !errors.Is(err, ErrModuleResult) || len(mr.Checks) != 0 || mr.Metadata["result_error"] == nil {
				t.Fatalf("a refusal kept checks or said nothing: %v %+v", err, mr)
			}
			return
		}
		list := make([]any, len(mr.Checks))
		for i, c := range mr.Checks {
			if c.Unit != "m" || len(c.ID) < 3 || c.ID[:2] != "m/" || c.Weight <= 0 {
				t.Fatalf("collected check %+v is not the module's", c)
			}
			c.ID, c.Unit = c.ID[2:], ""
			list[i] = c
		}
		enc, err := marshalPy(object{{"checks", list}})
		if err != nil {
			t.Fatalf("accepted, but cannot be written: %v", err)
		}
		back, err := ParseModuleResult("m", enc)
		if err != nil {
			t.Fatalf("accepted, but its encoding is refused: %v\n%s", err, enc)
		}
		a, _ := marshalPy(checksOf(mr.Checks))
		b, _ := marshalPy(checksOf(back.Checks))
		if len(mr.Checks) > 0 {
			// The first encoding normalises (weights to 6 dp); compare the
			// re-read with a third reading of its own encoding.
			list2 := make([]any, len(back.Checks))
			for i, c := range back.Checks {
				c.ID, c.Unit = c.ID[2:], ""
				list2[i] = c
			}
			enc2, _ := marshalPy(object{{"checks", list2}})
			third, err := ParseModuleResult("m", enc2)
			if err != nil {
				t.Fatalf("a re-encoding is refused: %v", err)
			}
			a, _ = marshalPy(checksOf(third.Checks))
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("the encoding does not read back equal:\n%s\n---\n%s", a, b)
		}
	})
}

func checksOf(cs []Check) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = c
	}
	return out
}
