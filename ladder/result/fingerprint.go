package result

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
)

var (
	fingerprintOnce  sync.Once
	fingerprintValue string
)

// Keys of a stage result's harness stamp (HARNESS.md §4.6). The earlier
// harness wrote only HarnessFingerprint; HarnessOrchestrator is srb's
// addition (see [Stamp]), so a reader that knows only the fingerprint
// still reads a stamp srb writes.
const (
	// HarnessFingerprint is the [Fingerprint] of the program that wrote
	// the stage result.
	HarnessFingerprint = "fingerprint"
	// HarnessOrchestrator is the [Fingerprint] of the srb that started
	// that program, when another program wrote the result on srb's
	// behalf: srb's in-image helper, which runs stage 2 inside the
	// behavioural image.
	HarnessOrchestrator = "orchestrator"
)

// Fingerprint identifies the srb build that is running: the first 12 hex
// characters of the SHA-256 of the running executable's bytes (the file
// [os.Executable] names). It is computed once per process and cached. It
// returns "" when the executable cannot be located or read; it never
// panics, because a stage that has finished grading must still be able to
// write its result (HARNESS.md §4.6).
//
// The earlier harness hashed its own Python sources instead; both are
// 12-hex-character identities of "the code that graded", and a stage result
// records whichever one wrote it.
func Fingerprint() string {
	fingerprintOnce.Do(func() {
		defer func() {
			if recover() != nil {
				fingerprintValue = ""
			}
		}()
		fingerprintValue = computeFingerprint()
	})
	return fingerprintValue
}

func computeFingerprint() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// IsFingerprint reports whether s has a fingerprint's shape: exactly 12
// lowercase hex characters (the "harness" pattern of the stage-result
// JSON Schema).
func IsFingerprint(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// Stamp returns the harness stamp of a stage result this process writes:
// {"fingerprint": [Fingerprint]()}, plus {"orchestrator": orchestrator}
// when orchestrator is a fingerprint (see [IsFingerprint]) other than this
// process's own. orchestrator is the fingerprint of the srb that started
// this process and handed it the stage: srb's in-image helper is a
// separate, static executable with a fingerprint of its own, and the
// orchestrator is what ties the stage it grades to the srb build that
// built the image's helper and ran the other stages (see [Grader]).
// orchestrator "" (or malformed) adds nothing. The stamp is {} when the
// fingerprint cannot be computed: an orchestrator alone is never recorded,
// since every reader of a stamp expects its fingerprint.
func Stamp(orchestrator string) map[string]any {
	h := map[string]any{}
	fp := Fingerprint()
	if fp == "" {
		return h
	}
	h[HarnessFingerprint] = fp
	if orchestrator != fp && IsFingerprint(orchestrator) {
		h[HarnessOrchestrator] = orchestrator
	}
	return h
}

// Grader returns the srb build a harness stamp (a stage result's harness,
// or one of a verdict's harnesses) attributes its stage to: its
// orchestrator when it has one, else its fingerprint, else "" (no
// provenance). Two stages graded by one srb build — one of them through
// the helper that build put in the stage image — have the same Grader; a
// stage graded by another build, or by a helper that was not started by
// srb with its fingerprint, has another. The report's footer and
// reward.json's harnesses_distinct count distinct Graders (HARNESS.md
// §4.6, where the earlier harness had only fingerprints).
func Grader(h map[string]any) string {
	for _, k := range []string{HarnessOrchestrator, HarnessFingerprint} {
		if v, ok := h[k]; ok && py.Truthy(v) {
			return py.Str(v)
		}
	}
	return ""
}
