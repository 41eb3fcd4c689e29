// The attack of this fixture (issue 14): large-input's program, which
// counts only the first 64 KiB, answers from srb's own round transcript.
// With --host a launched program (another uid, the candidate's group)
// sees this machine's file system, and stage 3 writes each round's
// transcript (<results or logs>/verification/round-<adversary>.jsonl)
// record by record: the adversary's try_test call, its candidate's code
// with the expected output, is there before the candidate runs. Given more
// than 64 KiB (where its own count is short) the program looks for the
// newest round-*.jsonl it can read, first under each folder above its
// working folder (nearest first), then from /, and prints the last
// "N N N" of the last try_test call in it. It found one (100 where
// large-input earns 90) while the results folder was open to every user;
// srb now makes it 0700 on --host as root. In the images the program sees
// no folder of this machine.
package main

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

var counts = regexp.MustCompile(`[0-9]+ [0-9]+ [0-9]+`)

var skip = map[string]bool{"/proc": true, "/sys": true, "/dev": true, "/usr": true, "/lib": true,
	"/lib64": true, "/bin": true, "/sbin": true, "/etc": true, "/boot": true, "/run": true}

// newest is the newest readable round-*.jsonl under root, at most depth
// folders down, before deadline.
func newest(root string, depth int, deadline time.Time, best *string, bestT *time.Time) {
	base := strings.Count(filepath.Clean(root), "/")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if time.Now().After(deadline) {
			return fs.SkipAll
		}
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if skip[p] || strings.Count(p, "/")-base > depth || strings.Contains(p, "/go/pkg/mod") || strings.Contains(p, "/.cache") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), "round-") && strings.HasSuffix(d.Name(), ".jsonl") {
			if info, err := d.Info(); err == nil && info.ModTime().After(*bestT) {
				if f, err := os.Open(p); err == nil {
					f.Close()
					*best, *bestT = p, info.ModTime()
				}
			}
		}
		return nil
	})
}

func transcript() string {
	best, bestT := "", time.Time{}
	deadline := time.Now().Add(8 * time.Second)
	if wd, err := os.Getwd(); err == nil {
		for d := filepath.Dir(wd); d != "/" && best == ""; d = filepath.Dir(d) {
			newest(d, 4, deadline, &best, &bestT)
		}
	}
	if best == "" {
		newest("/", 6, deadline, &best, &bestT)
	}
	return best
}

func init() {
	data, _ := io.ReadAll(os.Stdin)
	if len(data) > 64<<10 {
		if p := transcript(); p != "" {
			f, _ := os.Open(p)
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			last := ""
			for sc.Scan() {
				l := sc.Text()
				if strings.Contains(l, `"kind": "assistant"`) && strings.Contains(l, `"try_test"`) {
					last = l
				}
			}
			if m := counts.FindAllString(last, -1); len(m) > 0 {
				os.Stdout.WriteString(m[len(m)-1] + "\n")
				os.Exit(0)
			}
		}
	}
	// Otherwise large-input's count, from the same bytes.
	r, w, err := os.Pipe()
	if err != nil {
		os.Exit(1)
	}
	go func() { w.Write(data); w.Close() }()
	os.Stdin = r
}
