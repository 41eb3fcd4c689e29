package image

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// BaseEpoch is the time every file of a debootstrap base is set to: the
// base is shared by tasks whatever their SOURCE_DATE_EPOCH.
var BaseEpoch = time.Unix(946684800, 0).UTC()

// baseJunk are the paths of a fresh debootstrap tree that differ from run
// to run or belong to the machine that made it; they are emptied or
// removed before the tree is digested.
var baseJunk = []string{
	"dev/*", "proc/*", "sys/*", "run/*", "tmp/*", "var/tmp/*",
	"var/cache/apt/archives/*.deb", "var/cache/apt/*.bin", "var/lib/apt/lists/*",
	"var/log/*", "var/cache/ldconfig/aux-cache", "var/cache/debconf/*-old",
	"var/lib/dpkg/*-old", "etc/resolv.conf", "etc/hostname", "etc/machine-id",
	"debootstrap",
}

// mirrorFor returns the mirror to debootstrap suite from: the base's own
// mirror, else the first "deb" URI in the system's apt sources whose
// suites include suite.
func mirrorFor(b task.Base, etc string) (string, error) {
	if b.Mirror != "" {
		return b.Mirror, nil
	}
	files, _ := filepath.Glob(filepath.Join(etc, "apt/sources.list.d/*.sources"))
	sort.Strings(files)
	for _, f := range files {
		if m := deb822Mirror(f, b.Suite); m != "" {
			return m, nil
		}
	}
	lists, _ := filepath.Glob(filepath.Join(etc, "apt/sources.list.d/*.list"))
	lists = append([]string{filepath.Join(etc, "apt/sources.list")}, lists...)
	for _, f := range lists {
		if m := oneLineMirror(f, b.Suite); m != "" {
			return m, nil
		}
	}
	return "", fmt.Errorf("base: no deb mirror for %s in %s/apt: set images.base.mirror", b.Suite, etc)
}

func deb822Mirror(file, suite string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	for _, para := range strings.Split(string(data), "\n\n") {
		fields := map[string]string{}
		for _, line := range strings.Split(para, "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			if k, v, ok := strings.Cut(line, ":"); ok {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if !hasWord(fields["types"], "deb") || !hasWord(fields["suites"], suite) {
			continue
		}
		if uris := strings.Fields(fields["uris"]); len(uris) > 0 {
			return uris[0]
		}
	}
	return ""
}

func oneLineMirror(file, suite string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) >= 3 && w[0] == "deb" {
			i := 1
			if strings.HasPrefix(w[1], "[") {
				for i < len(w) && !strings.HasSuffix(w[i], "]") {
					i++
				}
				i++
			}
			if i+1 < len(w) && w[i+1] == suite {
				return w[i]
			}
		}
	}
	return ""
}

func hasWord(s, w string) bool {
	for _, x := range strings.Fields(s) {
		if x == w {
			return true
		}
	}
	return false
}

// baseKey names the folder of a debootstrap base by what makes it.
func baseKey(b task.Base, mirror string) string {
	pk := append([]string(nil), b.Packages...)
	sort.Strings(pk)
	sum := sha256.Sum256([]byte(strings.Join([]string{"debootstrap", "minbase", b.Suite, mirror, strings.Join(pk, ",")}, "\n")))
	return b.Suite + "-" + hex.EncodeToString(sum[:])[:16]
}

// prepareBase makes (once) the debootstrap base of b under
// root/base/<key>/rootfs and returns it as an Input. A made base is
// found by its key and trusted by its recorded digest unless recheck is
// set, when its tree is digested again.
func prepareBase(ctx context.Context, b task.Base, root string, recheck bool, logf func(string, ...any)) (Input, error) {
	mirror, err := mirrorFor(b, "/etc")
	if err != nil {
		return Input{}, err
	}
	dir := filepath.Join(root, "base", baseKey(b, mirror))
	rootfs := filepath.Join(dir, "rootfs")
	about := fmt.Sprintf("debootstrap --variant=minbase %s", b.Suite)
	if len(b.Packages) > 0 {
		about += " --include=" + strings.Join(b.Packages, ",")
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return Input{}, err
	}
	defer unlock()
	if d, err := os.ReadFile(filepath.Join(dir, "digest")); err == nil {
		// Closed to other users: the tree's own tmp and var/tmp are
		// world-writable (1777), and a graded process on this machine
		// (--host) must not plant files in, or fill, what later builds
		// trust by its recorded digest. Caches made before are closed
		// here too.
		if err := os.Chmod(dir, 0o700); err != nil {
			return Input{}, fmt.Errorf("base: %w", err)
		}
		tree := strings.TrimSpace(string(d))
		if recheck {
			got, err := TreeDigest(rootfs)
			if err != nil {
				return Input{}, fmt.Errorf("base: %w", err)
			}
			if got != tree {
				return Input{}, fmt.Errorf("base: %s changed on disk (tree %s, recorded %s): remove %s to make it again", rootfs, got, tree, dir)
			}
		}
		return baseInput(b, dir, tree, about)
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return Input{}, fmt.Errorf("base: debootstrap is not installed: run scripts/engines.sh")
	}
	logf("making the %s base with debootstrap (about 30 s)", b.Suite)
	if err := os.RemoveAll(dir); err != nil {
		return Input{}, err
	}
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(tmp), 0o755); err != nil {
		return Input{}, fmt.Errorf("base: %w", err)
	}
	// Closed to other users (see above), from the start.
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return Input{}, fmt.Errorf("base: %w", err)
	}
	defer os.RemoveAll(tmp)
	args := []string{"--variant=minbase"}
	if len(b.Packages) > 0 {
		args = append(args, "--include="+strings.Join(b.Packages, ","))
	}
	args = append(args, b.Suite, filepath.Join(tmp, "rootfs"), mirror)
	cmd := exec.CommandContext(ctx, "debootstrap", args...)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=946684800")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Input{}, fmt.Errorf("base: debootstrap %s: %w\n%s", b.Suite, err, tail(out, 20))
	}
	tfs := filepath.Join(tmp, "rootfs")
	for _, pat := range baseJunk {
		ms, _ := filepath.Glob(filepath.Join(tfs, pat))
		for _, m := range ms {
			if err := os.RemoveAll(m); err != nil {
				return Input{}, fmt.Errorf("base: %w", err)
			}
		}
	}
	if err := setTimes(tfs, BaseEpoch); err != nil {
		return Input{}, fmt.Errorf("base: %w", err)
	}
	digest, err := TreeDigest(tfs)
	if err != nil {
		return Input{}, fmt.Errorf("base: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "digest"), []byte(digest+"\n"), 0o644); err != nil {
		return Input{}, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return Input{}, fmt.Errorf("base: %w", err)
	}
	return baseInput(b, dir, digest, about)
}

// baseInput serves the made base dir as a one-layer OCI image (written
// once, beside the tree) and checks the tree digest against the pin.
func baseInput(b task.Base, dir, tree, about string) (Input, error) {
	if b.SHA256 != "" && "sha256:"+b.SHA256 != tree {
		return Input{}, fmt.Errorf("base: the %s base made here has tree digest %s, but images.base.sha256 pins sha256:%s: the mirror moved or the base differs; pin a mirror snapshot, or re-pin knowingly", b.Suite, tree, b.SHA256)
	}
	store := filepath.Join(dir, "oci")
	m, err := os.ReadFile(filepath.Join(dir, "manifest"))
	manifest := strings.TrimSpace(string(m))
	if err != nil || manifest == "" {
		if manifest, err = writeOCIBase(filepath.Join(dir, "rootfs"), store); err != nil {
			return Input{}, fmt.Errorf("base: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "manifest"), []byte(manifest+"\n"), 0o644); err != nil {
			return Input{}, err
		}
	}
	return Input{Name: "base", Dir: store, Digest: manifest, About: about + ", tree " + tree}, nil
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
