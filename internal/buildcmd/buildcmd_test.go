package buildcmd

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// needed lists the paths a build needs, as "path(kind)".
func summary(t *testing.T, build [][]string) (needed, written []string) {
	t.Helper()
	uses, err := Analyse(build)
	if err != nil {
		t.Fatalf("Analyse(%q): %v", build, err)
	}
	for _, u := range uses {
		if u.Needed() {
			needed = append(needed, fmt.Sprintf("%s(%s)", u.Path, u.Kind))
		} else {
			written = append(written, u.Path)
		}
	}
	return needed, written
}

func TestAnalyse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		build   [][]string
		needed  []string
		written []string
	}{
		{
			// issue 16: a sh -c script was read as one file path.
			name:    "sh -c script with npm",
			build:   [][]string{{"sh", "-c", "npm ci && node scripts/build.mjs && cp -r node_modules/tally dist/"}},
			needed:  []string{"package.json(reads)", "package-lock.json(reads)", "scripts/build.mjs(reads)"},
			written: []string{"node_modules", "dist", "node_modules/tally"},
		},
		{
			name:    "go build -o bin/tally",
			build:   [][]string{{"go", "build", "-trimpath", "-o", "bin/tally", "./cmd/tally"}},
			needed:  []string{"cmd/tally(reads)", "go.mod(reads)", "go.sum(reads)"},
			written: []string{"bin/tally"},
		},
		{
			name:    "output outside the tree",
			build:   [][]string{{"go", "build", "-o", "../tally", "."}},
			needed:  []string{"go.mod(reads)", "go.sum(reads)"},
			written: nil,
		},
		{
			name:    "cmake -B then --build",
			build:   [][]string{{"cmake", "-S", ".", "-B", "_build/rel", "-DCMAKE_BUILD_TYPE=Release"}, {"cmake", "--build", "_build/rel"}},
			needed:  nil,
			written: []string{"_build/rel", "_build/rel"},
		},
		{
			name:    "cargo manifest path and target dir",
			build:   [][]string{{"cargo", "build", "--release", "--manifest-path=src/jsonnet/Cargo.toml", "--target-dir", "target"}},
			needed:  []string{"src/jsonnet/Cargo.toml(reads)"},
			written: []string{"target"},
		},
		{
			name:   "make -C is an input folder",
			build:  [][]string{{"make", "-C", "jsonnet", "CONFIG=conf/x.cfg"}},
			needed: []string{"jsonnet(changes into)", "jsonnet/conf/x.cfg(reads)"},
		},
		{
			name:    "cd in a script, redirections, mkdir",
			build:   [][]string{{"bash", "-ec", "mkdir -p out && cd src/lib && gcc -o ../../out/t main.c > build.log < flags.txt; cat \"$HOME/x\" *.c"}},
			needed:  []string{"src/lib(changes into)", "src/lib/main.c(reads)", "src/lib/flags.txt(reads)"},
			written: []string{"out", "out/t", "src/lib/build.log"},
		},
		{
			name:   "bash script file with arguments",
			build:  [][]string{{"bash", "./build.sh", "${BUILD}/stage", "DESTDIR=${BUILD}/stage", "CONFIG=conf/tally.cfg"}},
			needed: []string{"build.sh(reads)", "conf/tally.cfg(reads)"},
		},
		{
			// issue 16 (audit): npx runs tsc, whose --outDir is written.
			name:    "npx tsc --outDir, then node reads what it wrote",
			build:   [][]string{{"npx", "-p", "typescript", "tsc", "--outDir", "dist"}, {"node", "dist/build.js"}},
			written: []string{"dist", "dist/build.js"},
		},
		{
			name:    "a compiler's include and library folders",
			build:   [][]string{{"cc", "-I", "include", "-Ilib/inc", "-Lvendor/lib", "-o", "tally", "tally.c"}},
			needed:  []string{"include(reads)", "lib/inc(reads)", "vendor/lib(reads)", "tally.c(reads)"},
			written: []string{"tally"},
		},
		{
			name:   "go build -mod=vendor reads go.mod, go.sum and vendor/",
			build:  [][]string{{"go", "build", "-mod=vendor", "./cmd/x"}},
			needed: []string{"cmd/x(reads)", "go.mod(reads)", "go.sum(reads)", "vendor(reads)"},
		},
		{
			name:    "cargo build --locked in a folder reads its Cargo.toml and Cargo.lock",
			build:   [][]string{{"sh", "-c", "cd rust && cargo build --locked --release"}},
			needed:  []string{"rust(changes into)", "rust/Cargo.toml(reads)", "rust/Cargo.lock(reads)"},
			written: nil,
		},
		{
			// pf03: a make goal is a target make writes, not an input; the
			// copy of it that follows reads what the build made.
			name:    "make's goals are what it makes",
			build:   [][]string{{"sh", "-c", "make CONFIG_LTO= qjs libquickjs.a tests/bjson.so && mkdir -p out && cp libquickjs.a tests/bjson.so out/"}},
			needed:  nil,
			written: []string{"libquickjs.a", "tests/bjson.so", "out", "out", "libquickjs.a", "tests/bjson.so"},
		},
		{
			name:   "a program the build runs",
			build:  [][]string{{"./configure", "--prefix=/usr"}, {"make"}},
			needed: []string{"configure(runs)"},
		},
		{
			name:   "go version reads nothing",
			build:  [][]string{{"go", "version"}},
			needed: nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needed, written := summary(t, tc.build)
			if !slices.Equal(needed, tc.needed) {
				t.Errorf("needed = %q, want %q", needed, tc.needed)
			}
			if !slices.Equal(written, tc.written) {
				t.Errorf("written = %q, want %q", written, tc.written)
			}
		})
	}
}

func TestAnalyseBadScript(t *testing.T) {
	_, err := Analyse([][]string{{"go", "version"}, {"sh", "-c", "if then"}})
	if err == nil || !strings.Contains(err.Error(), "build[1]") || !strings.Contains(err.Error(), "does not parse") {
		t.Fatalf("err = %v, want build[1]: … does not parse", err)
	}
}

// TestPrograms: the programs a build runs, read as a shell would: through
// wrappers, environment words, conditions and subshells of a -c script;
// npx runs its package's program, so the image needs npx; builtins and
// the tree's own scripts are not programs.
func TestPrograms(t *testing.T) {
	build := [][]string{
		{"go", "build", "-o", "bin/tally", "."},
		{"sh", "-c", "cd src && CGO_ENABLED=0 make -C jsonnet && if true; then cmake --build build; fi; (ninja -C build) | tee log; echo done; ./configure; env FOO=1 time gcc -c x.c"},
		{"npx", "-p", "typescript", "tsc", "--outDir", "dist"},
		{"/usr/bin/cargo", "build"},
		{"$TOOL", "x"},
		{"bash", "scripts/build.sh", "arg"},
	}
	got, err := Programs(build)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, fmt.Sprintf("%d:%s", p.Cmd, p.Name))
	}
	want := []string{"0:go", "1:sh", "1:make", "1:cmake", "1:ninja", "1:tee", "1:env", "1:time", "1:gcc", "2:npx", "3:/usr/bin/cargo", "5:bash"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("Programs (-want +got):\n%s", d)
	}
	if _, err := Programs([][]string{{"sh", "-c", "if then"}}); err == nil || !strings.Contains(err.Error(), "build[0]") {
		t.Errorf("a script that does not parse: %v", err)
	}
}
