package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLaunchClientPerBase: sessions under two base folders get a client
// in each, and releasing one base's last use leaves the other's in place.
// One client per process, made under the first session's base, vanished
// under the other sessions when that base went (a parallel test's tmpfs
// unmounted: "srb-launch: not found" on both trees).
func TestLaunchClientPerBase(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ca, err := acquireLaunchClient(a)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := acquireLaunchClient(b)
	if err != nil {
		t.Fatal(err)
	}
	cb2, err := acquireLaunchClient(b)
	if err != nil {
		t.Fatal(err)
	}
	if cb2 != cb {
		t.Errorf("two sessions under one base got %s and %s, want one client", cb, cb2)
	}
	for base, c := range map[string]string{a: ca, b: cb} {
		if rel, err := filepath.Rel(base, c); err != nil || filepath.IsAbs(rel) || rel[0] == '.' {
			t.Errorf("client %s is not under its base %s", c, base)
		}
	}
	releaseLaunchClient(a)
	if _, err := os.Stat(ca); !os.IsNotExist(err) {
		t.Errorf("base a's client after its last release: %v, want it removed", err)
	}
	if _, err := os.Stat(cb); err != nil {
		t.Errorf("base b's client after base a's release: %v", err)
	}
	releaseLaunchClient(b)
	if _, err := os.Stat(cb); err != nil {
		t.Errorf("base b's client with one use left: %v", err)
	}
	releaseLaunchClient(b)
	if _, err := os.Stat(cb); !os.IsNotExist(err) {
		t.Errorf("base b's client after its last release: %v, want it removed", err)
	}
}
