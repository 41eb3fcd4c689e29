package source

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

// run executes a client program in dir and returns its stdout; a failure
// carries the program's stderr.
func run(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		return stdout.Bytes(), fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// fetchGoMod downloads module@version with the go command, which reads
// GOPROXY, GONOSUMDB and the rest from the environment and verifies the
// zip against the checksum database.
func fetchGoMod(ctx context.Context, s task.Source, _, dir string, env *Env) error {
	work := filepath.Join(env.Work, "gomod")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	env.logf("go mod download %s@%s", s.Module, s.Version)
	out, err := run(ctx, work, []string{"GOFLAGS=-mod=mod", "GO111MODULE=on"}, env.prog(env.Go, "go"), "mod", "download", "-json", s.Module+"@"+s.Version)
	var info struct{ Zip, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return fmt.Errorf("go mod download: %s", info.Error)
	}
	if err != nil {
		return err
	}
	if info.Zip == "" {
		return fmt.Errorf("go mod download %s@%s reported no zip", s.Module, s.Version)
	}
	// A module zip holds every file under "<module>@<version>/", a path of
	// several folders (gopkg.in/yaml.v3@v3.0.1/): keep only that folder.
	unz := filepath.Join(work, "unzip")
	if err := archive.ExtractFile(info.Zip, unz, LimitsOf(s)); err != nil {
		return err
	}
	inner := filepath.Join(unz, filepath.FromSlash(s.Module+"@"+s.Version))
	if !isDir(inner) {
		return fmt.Errorf("module zip %s has no folder %s@%s", info.Zip, s.Module, s.Version)
	}
	return os.Rename(inner, filepath.Join(dir, "module"))
}

// fetchNPM packs package@version with the npm client, which uses its
// configured registry and checks the tarball's integrity.
func fetchNPM(ctx context.Context, s task.Source, _, dir string, env *Env) error {
	work := filepath.Join(env.Work, "npm")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	env.logf("npm pack %s@%s", s.Package, s.Version)
	out, err := run(ctx, work, nil, env.prog(env.NPM, "npm"), "pack", s.Package+"@"+s.Version, "--pack-destination", work, "--json", "--ignore-scripts")
	if err != nil {
		return err
	}
	var packs []struct{ Filename string }
	if err := json.Unmarshal(out, &packs); err != nil || len(packs) != 1 || packs[0].Filename == "" {
		return fmt.Errorf("npm pack %s@%s: unexpected output %q", s.Package, s.Version, truncate(out, 200))
	}
	// npm names scoped packages' tarballs scope-name-version.tgz.
	return archive.ExtractFile(filepath.Join(work, filepath.Base(packs[0].Filename)), dir, LimitsOf(s))
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// fetchDebian downloads a source package's upstream tarball with apt, in
// a private apt state whose deb-src entries mirror the system's deb entries
// (same mirrors, suites, components and keyrings), so apt checks the signed
// indexes. Only the tarball State A is made of is downloaded: the upstream
// .orig tarball (or, for a native package, the package's own tarball), not
// the .dsc, the Debian packaging or extra orig components, which a partial
// mirror may not serve. apt-get source --print-uris gives its URI, size and
// hash from the signed Sources index; apt-helper downloads it checking that
// hash, and srb checks the size and SHA-256 again before unpacking.
func fetchDebian(ctx context.Context, s task.Source, _, dir string, env *Env) error {
	apt, opts, dl, err := privateApt(ctx, "deb-src", s.Package, s.Suite, env)
	if err != nil {
		return err
	}
	env.logf("apt-get source --print-uris %s=%s", s.Package, s.Version)
	out, err := run(ctx, dl, nil, apt, append(opts, "source", "--print-uris", s.Package+"="+s.Version)...)
	if err != nil {
		return err
	}
	files, err := parseSourceURIs(out)
	if err != nil {
		return fmt.Errorf("apt-get source --print-uris %s=%s: %w", s.Package, s.Version, err)
	}
	f, err := debianTarball(files, s.Package, s.Version)
	if err != nil {
		return err
	}
	dest, err := aptDownload(ctx, dl, f, env)
	if err != nil {
		return err
	}
	return archive.ExtractFile(dest, dir, LimitsOf(s))
}

// fetchDebianBinary downloads a Debian binary package (.deb) with apt, in
// a private apt state whose deb entries are the system's, so apt checks the
// signed indexes: apt-get download --print-uris gives the package's URI,
// size and hash from the signed Packages index, apt-helper downloads it
// checking that hash, and srb checks the size and SHA-256 again. State A
// is the package's data.tar (the files dpkg would install, not its
// maintainer scripts), or only its folder s.Subdir when the task names one
// (a Python package's usr/lib/python3/dist-packages), with the package's
// usr/share/doc/<package>/copyright beside that folder's files as
// copyright. It serves a release whose source package the mirror does not
// carry.
func fetchDebianBinary(ctx context.Context, s task.Source, _, dir string, env *Env) error {
	if s.Subdir != "" && !filepath.IsLocal(filepath.FromSlash(s.Subdir)) {
		return fmt.Errorf("state_a.source.subdir %q is not a relative path inside the package", s.Subdir)
	}
	apt, opts, dl, err := privateApt(ctx, "deb", s.Package, "", env)
	if err != nil {
		return err
	}
	env.logf("apt-get download --print-uris %s=%s", s.Package, s.Version)
	out, err := run(ctx, dl, nil, apt, append(opts, "download", "--print-uris", s.Package+"="+s.Version)...)
	if err != nil {
		return err
	}
	files, err := parseSourceURIs(out)
	if err != nil {
		return fmt.Errorf("apt-get download --print-uris %s=%s: %w", s.Package, s.Version, err)
	}
	if len(files) != 1 || !strings.HasSuffix(files[0].Name, ".deb") {
		var names []string
		for _, f := range files {
			names = append(names, archive.QuoteName(f.Name))
		}
		return fmt.Errorf("apt-get download --print-uris %s=%s listed %s, not one .deb", s.Package, s.Version, strings.Join(names, ", "))
	}
	deb, err := aptDownload(ctx, dl, files[0], env)
	if err != nil {
		return err
	}
	data := filepath.Join(env.Work, "deb-data.tar")
	if err := debData(deb, data, LimitsOf(s)); err != nil {
		return fmt.Errorf("%s: %w", files[0].Name, err)
	}
	if s.Subdir == "" {
		return archive.ExtractFile(data, dir, LimitsOf(s))
	}
	all := filepath.Join(env.Work, "deb-files")
	if err := archive.ExtractFile(data, all, LimitsOf(s)); err != nil {
		return err
	}
	sub := filepath.Join(all, filepath.FromSlash(s.Subdir))
	if !isDir(sub) {
		return fmt.Errorf("%s has no folder %s (state_a.source.subdir)", files[0].Name, s.Subdir)
	}
	// The package's terms travel with its files: Debian's copyright file,
	// when the package has one, is kept as copyright at State A's top.
	cr := filepath.Join(all, "usr", "share", "doc", s.Package, "copyright")
	if st, err := os.Lstat(cr); err == nil && st.Mode().IsRegular() {
		to := filepath.Join(sub, "copyright")
		if _, err := os.Lstat(to); err == nil {
			return fmt.Errorf("%s: %s already holds a file copyright, where Debian's copyright file would go", files[0].Name, s.Subdir)
		}
		if err := os.Rename(cr, to); err != nil {
			return err
		}
	}
	return os.Rename(sub, filepath.Join(dir, filepath.Base(sub)))
}

// debData copies the data.tar member of the Debian package at deb (an ar
// archive: debian-binary, control.tar.*, data.tar.*) to out, at most
// lim.MaxBytes of it. Its compression is left to archive.ExtractFile.
func debData(deb, out string, lim archive.Limits) error {
	f, err := os.Open(deb)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	magic := make([]byte, 8)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "!<arch>\n" {
		return errors.New("not a Debian package (no ar header)")
	}
	hdr := make([]byte, 60)
	for {
		if _, err := io.ReadFull(r, hdr); err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("no data.tar member")
			}
			return fmt.Errorf("ar member header: %w", err)
		}
		name := strings.TrimSuffix(strings.TrimSpace(string(hdr[0:16])), "/")
		var size int64
		if _, err := fmt.Sscan(strings.TrimSpace(string(hdr[48:58])), &size); err != nil || size < 0 || string(hdr[58:60]) != "`\n" {
			return fmt.Errorf("ar member %s: malformed header", archive.QuoteName(name))
		}
		if strings.HasPrefix(name, "data.tar") {
			if size > lim.MaxBytes {
				return fmt.Errorf("%w: data.tar is %d bytes, more than %d (state_a.source.limits.max_bytes)", archive.ErrTooLarge, size, lim.MaxBytes)
			}
			w, err := os.Create(out)
			if err != nil {
				return err
			}
			if _, err := io.CopyN(w, r, size); err != nil {
				w.Close()
				return fmt.Errorf("data.tar: %w", err)
			}
			return w.Close()
		}
		if _, err := io.CopyN(io.Discard, r, size+size%2); err != nil {
			return fmt.Errorf("ar member %s: %w", archive.QuoteName(name), err)
		}
	}
}

// privateApt prepares an apt state under env.Work whose entries of type typ
// ("deb" or "deb-src") mirror the system's deb entries, runs apt-get
// update in it, and returns apt-get, the options that select that state
// and the download folder. pkg names the package in the error when the
// system has no deb entry. A suite ("" for none) replaces the system's
// own release: only the entries that serve the system's release (its
// os-release VERSION_CODENAME among their suites) are written, each with
// that suite as its only suite, so the same mirrors and keyrings serve
// another release's signed index.
func privateApt(ctx context.Context, typ, pkg, suite string, env *Env) (apt string, opts []string, dl string, err error) {
	root := filepath.Join(env.Work, "apt")
	parts := filepath.Join(root, "sources.list.d")
	dl = filepath.Join(root, "dl")
	for _, d := range []string{parts, filepath.Join(root, "lists", "partial"), filepath.Join(root, "cache", "archives", "partial"), dl} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", nil, "", err
		}
	}
	var from string
	if suite != "" {
		if from, err = codename(env.prog(env.OSRelease, "/etc/os-release")); err != nil {
			return "", nil, "", fmt.Errorf("state_a.source.suite %s: %w", suite, err)
		}
	}
	n, err := writeAptSources(env.prog(env.AptSources, "/etc/apt"), parts, typ, from, suite)
	if err != nil {
		return "", nil, "", err
	}
	if n == 0 && suite != "" {
		return "", nil, "", fmt.Errorf("no deb entry in %s serves this system's release %s, so none can serve the suite %s (state_a.source.suite) for %s", env.prog(env.AptSources, "/etc/apt"), from, suite, pkg)
	}
	if n == 0 {
		return "", nil, "", fmt.Errorf("no deb entries in %s to derive %s entries from: configure an apt source for the mirror that serves %s", env.prog(env.AptSources, "/etc/apt"), typ, pkg)
	}
	opts = []string{
		"-q",
		"-o", "Dir::Etc::SourceList=/dev/null",
		"-o", "Dir::Etc::SourceParts=" + parts,
		"-o", "Dir::State::Lists=" + filepath.Join(root, "lists"),
		"-o", "Dir::Cache=" + filepath.Join(root, "cache"),
		"-o", "APT::Sandbox::User=root",
		"-o", "Debug::NoLocking=1",
	}
	apt = env.prog(env.AptGet, "apt-get")
	env.logf("apt-get update (%s)", typ)
	if _, err := run(ctx, root, nil, apt, append(opts, "update")...); err != nil {
		return "", nil, "", err
	}
	return apt, opts, dl, nil
}

// aptDownload downloads f into dl with apt-helper, which checks the
// index's hash, checks its size and SHA-256 again and returns its path.
func aptDownload(ctx context.Context, dl string, f sourceFile, env *Env) (string, error) {
	dest := filepath.Join(dl, f.Name)
	env.logf("apt-helper download-file %s", f.Name)
	if _, err := run(ctx, dl, nil, env.prog(env.AptHelper, "/usr/lib/apt/apt-helper"), "download-file", f.URI, dest, f.Hash); err != nil {
		return "", err
	}
	if err := checkDownload(dest, f); err != nil {
		return "", err
	}
	return dest, nil
}

// sourceFile is one file of a Debian source package as apt-get source
// --print-uris lists it: its URI, file name, size in bytes and hash
// ("SHA256:<hex>", from the signed Sources index).
type sourceFile struct {
	URI, Name string
	Size      int64
	Hash      string
}

// parseSourceURIs reads apt-get source --print-uris output: every line
// "'URI' name size HASH" is a file; other lines (notices, "Need to get")
// are skipped. No file at all is an error.
func parseSourceURIs(out []byte) ([]sourceFile, error) {
	var files []sourceFile
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "'") {
			continue
		}
		end := strings.Index(line[1:], "'")
		if end < 0 {
			continue
		}
		fields := strings.Fields(line[end+2:])
		if len(fields) != 3 {
			continue
		}
		var size int64
		if _, err := fmt.Sscan(fields[1], &size); err != nil {
			continue
		}
		files = append(files, sourceFile{URI: line[1 : end+1], Name: fields[0], Size: size, Hash: fields[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no file listed (got %q)", truncate(out, 400))
	}
	return files, nil
}

// debianTarball picks State A's tarball among a source package's files:
// the upstream <package>_<upstream>.orig.tar.* (not an .asc signature, not
// an .orig-<component> tarball), else a native package's
// <package>_<version>.tar.*.
func debianTarball(files []sourceFile, pkg, version string) (sourceFile, error) {
	upstream := version
	if i := strings.Index(upstream, ":"); i >= 0 {
		upstream = upstream[i+1:] // epoch
	}
	native := upstream
	if i := strings.LastIndex(upstream, "-"); i >= 0 {
		upstream = upstream[:i]
	}
	var orig, nat *sourceFile
	for i := range files {
		name := files[i].Name
		if strings.HasSuffix(name, ".asc") {
			continue
		}
		if strings.HasPrefix(name, pkg+"_"+upstream+".orig.tar.") {
			orig = &files[i]
		}
		if strings.HasPrefix(name, pkg+"_"+native+".tar.") {
			nat = &files[i]
		}
	}
	if orig == nil {
		orig = nat
	}
	if orig == nil {
		var names []string
		for _, f := range files {
			names = append(names, archive.QuoteName(f.Name))
		}
		return sourceFile{}, fmt.Errorf("source package %s %s lists no %s_%s.orig.tar.* (got %s)", pkg, version, pkg, upstream, strings.Join(names, ", "))
	}
	return *orig, nil
}

// checkDownload checks a downloaded file against the size and SHA-256 the
// signed index gave (a hash of another algorithm is left to apt-helper).
func checkDownload(path string, f sourceFile) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return err
	}
	if n != f.Size {
		return fmt.Errorf("%s: downloaded %d bytes, the source index says %d", f.Name, n, f.Size)
	}
	if alg, want, ok := strings.Cut(f.Hash, ":"); ok && strings.EqualFold(alg, "SHA256") {
		if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, want) {
			return fmt.Errorf("%s: sha256 %s, the source index says %s", f.Name, got, want)
		}
	}
	return nil
}

// codename reads VERSION_CODENAME from the os-release file at p.
func codename(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("this system's release: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok && k == "VERSION_CODENAME" {
			if v = strings.Trim(v, "\"'"); v != "" {
				return v, nil
			}
		}
	}
	return "", fmt.Errorf("this system's release: %s names no VERSION_CODENAME", p)
}

// writeAptSources writes every deb entry of the apt configuration under
// etc (sources.list, sources.list.d/*.list and *.sources) into out as an
// entry of type typ ("deb-src" for source packages, "deb" for binary
// ones), and returns how many it wrote. With a suite to ("" for none),
// only the entries listing the suite from are written, with to as their
// only suite.
func writeAptSources(etc, out, typ, from, to string) (int, error) {
	var files []string
	if _, err := os.Stat(filepath.Join(etc, "sources.list")); err == nil {
		files = append(files, filepath.Join(etc, "sources.list"))
	}
	more, _ := filepath.Glob(filepath.Join(etc, "sources.list.d", "*"))
	sort.Strings(more)
	files = append(files, more...)
	n := 0
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var sb strings.Builder
		switch {
		case strings.HasSuffix(f, ".sources"):
			for _, stanza := range strings.Split(string(b), "\n\n") {
				var lines []string
				isDeb, serves := false, to == ""
				sc := bufio.NewScanner(strings.NewReader(stanza))
				for sc.Scan() {
					line := sc.Text()
					if k, v, ok := strings.Cut(line, ":"); ok && to != "" && strings.EqualFold(strings.TrimSpace(k), "Suites") {
						for _, s := range strings.Fields(v) {
							if s == from {
								serves = true
							}
						}
						line = "Suites: " + to
					}
					if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Types") {
						for _, t := range strings.Fields(v) {
							if t == "deb" {
								isDeb = true
							}
						}
						line = "Types: " + typ
					}
					if k, _, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Enabled") {
						continue
					}
					lines = append(lines, line)
				}
				if isDeb && serves {
					sb.WriteString(strings.Join(lines, "\n") + "\n\n")
					n++
				}
			}
			if sb.Len() > 0 {
				if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("%02d-%s", i, filepath.Base(f))), []byte(sb.String()), 0o644); err != nil {
					return n, err
				}
			}
		case strings.HasSuffix(f, ".list") || filepath.Base(f) == "sources.list":
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if !strings.HasPrefix(line, "deb ") {
					continue
				}
				rest := strings.TrimPrefix(line, "deb ")
				if to != "" {
					// deb [options] URI suite component…
					f := strings.Fields(rest)
					i := 0
					if i < len(f) && strings.HasPrefix(f[i], "[") {
						for i < len(f) && !strings.HasSuffix(f[i], "]") {
							i++
						}
						i++
					}
					if i+1 >= len(f) || f[i+1] != from {
						continue
					}
					f[i+1] = to
					rest = strings.Join(f, " ")
				}
				sb.WriteString(typ + " " + rest + "\n")
				n++
			}
			if sb.Len() > 0 {
				if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("%02d-%s.list", i, strings.TrimSuffix(filepath.Base(f), ".list"))), []byte(sb.String()), 0o644); err != nil {
					return n, err
				}
			}
		}
	}
	return n, nil
}

// fetchURL downloads an https archive (proxies from the environment) into a
// temporary file in env.Work, at most the source's MaxBytes of it, checks
// its bytes against source.sha256, and only then unpacks it. A mismatch
// is a *MismatchError and nothing is unpacked: the caller caches nothing.
func fetchURL(ctx context.Context, s task.Source, _, dir string, env *Env) error {
	lim := LimitsOf(s)
	env.logf("GET %s", s.URL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return err
	}
	client := env.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", s.URL, resp.Status)
	}
	tooBig := func() error {
		return fmt.Errorf("GET %s: %w: the download is larger than %d bytes (state_a.source.limits.max_bytes)", s.URL, archive.ErrTooLarge, lim.MaxBytes)
	}
	if resp.ContentLength > lim.MaxBytes {
		return tooBig()
	}
	f, err := os.CreateTemp(env.Work, "download-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, lim.MaxBytes+1))
	if err != nil {
		f.Close()
		return fmt.Errorf("GET %s: %w", s.URL, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if n > lim.MaxBytes {
		return tooBig()
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != s.SHA256 {
		return &MismatchError{Source: Describe(s), Want: s.SHA256, Got: got, Bytes: true,
			Detail: "nothing was unpacked or cached; if the release was re-published knowingly, check its content and pin the new bytes in state_a.source.sha256"}
	}
	return archive.ExtractFile(f.Name(), dir, lim)
}

// fetchGit fetches one commit with the git client and exports its tree.
func fetchGit(ctx context.Context, s task.Source, _, dir string, env *Env) error {
	git := env.prog(env.Git, "git")
	repo := filepath.Join(env.Work, "git")
	if _, err := run(ctx, env.Work, nil, git, "init", "-q", repo); err != nil {
		return err
	}
	env.logf("git fetch %s %s", s.URL, s.Commit)
	if _, err := run(ctx, repo, nil, git, "fetch", "-q", "--depth", "1", s.URL, s.Commit); err != nil {
		// Servers that refuse fetching by id: fetch everything instead.
		if _, err2 := run(ctx, repo, nil, git, "fetch", "-q", s.URL, "+refs/*:refs/remotes/src/*"); err2 != nil {
			return fmt.Errorf("%w; and a full fetch: %v", err, err2)
		}
	}
	tarPath := filepath.Join(env.Work, "git.tar")
	if _, err := run(ctx, repo, nil, git, "archive", "--format=tar", "-o", tarPath, s.Commit); err != nil {
		return err
	}
	return archive.ExtractFile(tarPath, dir, LimitsOf(s))
}

// fetchLocal reads a local folder (its .git excluded) or archive.
func fetchLocal(_ context.Context, s task.Source, taskDir, dir string, env *Env) error {
	p := resolveLocal(taskDir, s.Path)
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("local source: %w", err)
	}
	if !st.IsDir() {
		return archive.ExtractFile(p, dir, LimitsOf(s))
	}
	return copyTree(p, filepath.Join(dir, filepath.Base(p)), LimitsOf(s))
}

// copyTree copies regular files, folders and symbolic links
// (copytree.Normalise, .git left out) within lim's bytes (each hard link
// counted in full: it is copied in full) and entries; other file types are
// refused.
func copyTree(src, dst string, lim archive.Limits) error {
	_, err := copytree.Copy(src, dst, copytree.Options{Modes: copytree.Normalise, Git: copytree.GitSkip, Special: copytree.RefuseSpecial,
		MaxBytes: lim.MaxBytes, MaxEntries: lim.MaxFiles})
	var se *copytree.SpecialError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("local source: %s is a %s, not a file, folder or link", archive.QuoteName(se.Rel), se.Type)
	case errors.Is(err, copytree.ErrTooManyEntries):
		return fmt.Errorf("local source: %w: more than %d entries (state_a.source.limits.max_files)", archive.ErrTooManyFiles, lim.MaxFiles)
	case errors.Is(err, copytree.ErrTooLarge):
		return fmt.Errorf("local source: %w: more than %d bytes of files (state_a.source.limits.max_bytes)", archive.ErrTooLarge, lim.MaxBytes)
	case errors.Is(err, copytree.ErrChanged):
		return fmt.Errorf("local source: %w", err)
	}
	return err
}
