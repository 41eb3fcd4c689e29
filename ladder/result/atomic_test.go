package result

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "results")
	p := filepath.Join(dir, "reward.json")
	for _, data := range []string{`{"score":1}`, `{"score":2}`} {
		if err := writeAtomic(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != data {
			t.Errorf("content %q, want %q", b, data)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 whatever the umask", st.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d entries left in the folder, want the file alone", len(ents))
	}
}

// Under strace, the file is fsynced before its rename and the folder
// after it.
func TestWriteAtomicSyncs(t *testing.T) {
	if os.Getenv("SRB_ATOMIC_CHILD") != "" {
		if err := writeAtomic(os.Getenv("SRB_ATOMIC_CHILD"), []byte("x")); err != nil {
			t.Fatal(err)
		}
		return
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("no strace")
	}
	p := filepath.Join(t.TempDir(), "score.json")
	cmd := exec.Command(strace, "-f", "-e", "trace=fsync,rename,renameat,renameat2", os.Args[0], "-test.run", "^TestWriteAtomicSyncs$")
	cmd.Env = append(os.Environ(), "SRB_ATOMIC_CHILD="+p)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("strace could not run: %v %s", err, out)
	}
	var seq []string
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		// A call strace shows cut in two ("fsync(5 <unfinished ...>", then
		// "<... fsync resumed>") counts once, at its start.
		case strings.Contains(line, "fsync("):
			seq = append(seq, "fsync")
		case strings.Contains(line, "rename") && strings.Contains(line, "score.json"):
			seq = append(seq, "rename")
		}
	}
	if strings.Join(seq, ",") != "fsync,rename,fsync" {
		t.Errorf("system calls %v, want fsync, rename, fsync\n%s", seq, out)
	}
}
