package result

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
)

var (
	fingerprintOnce  sync.Once
	fingerprintValue string
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
