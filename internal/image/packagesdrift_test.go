package image

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestPackagesDrift: srb build --verify's drift for an image whose npm
// tree moved names the dependency that moved, and a plain build logs it
// against the images.lock it replaces.
func TestPackagesDrift(t *testing.T) {
	root := t.TempDir()
	probed := func(list string) *Probed {
		sum := sha256.Sum256([]byte(list))
		return &Probed{Packages: list, PackagesDigest: "sha256:" + hex.EncodeToString(sum[:])}
	}
	was := probed("nodejs=18.20.4+dfsg-1~deb12u2\nnpm:node_modules/a=1.0.0 sha256:aa\nnpm:node_modules/a/node_modules/b=2.0.0 sha256:bb\n")
	now := probed("nodejs=18.20.4+dfsg-1~deb12u2\nnpm:node_modules/a=1.0.0 sha256:aa\nnpm:node_modules/a/node_modules/b=2.0.1 sha256:cc\n")
	if err := RememberPackages(root, []*Built{{Stage: "audit", Probed: was}, {Stage: "agent", Probed: now}}); err != nil {
		t.Fatal(err)
	}
	lock := func(p *Probed, digest string) *Lock {
		return &Lock{Task: "t1", Images: map[string]LockImage{"audit": {Digest: digest, Inputs: map[string]string{"packages": p.PackagesDigest}}}}
	}
	want, got := lock(was, "sha256:"+strings.Repeat("1", 64)), lock(now, "sha256:"+strings.Repeat("2", 64))
	ds := Compare(want, got)
	if len(ds) != 1 {
		t.Fatalf("Compare: %v", ds)
	}
	s := packagesDrift(root, want, got, ds[0]).String()
	if !strings.Contains(s, "; input packages: npm:node_modules/a/node_modules/b 2.0.0 sha256:bb → 2.0.1 sha256:cc") {
		t.Errorf("drift %q does not name the npm dependency that moved", s)
	}
	var logged []string
	notePackagesMoved(root, want, got, func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) })
	wantLog := []string{"t1: the audit image's packages moved since images.lock: npm:node_modules/a/node_modules/b 2.0.0 sha256:bb → 2.0.1 sha256:cc"}
	if strings.Join(logged, "\n") != strings.Join(wantLog, "\n") {
		t.Errorf("logged %q, want %q", logged, wantLog)
	}
	logged = nil
	notePackagesMoved(root, nil, got, func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) })
	if len(logged) != 0 {
		t.Errorf("no earlier lock: logged %q", logged)
	}
}
