package image

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/moby/buildkit/client/llb"
)

// npmTreeJS prints one line per package installed under the global
// node_modules folder given as its argument, nested ones included:
// "npm:<path>=<version> sha256:<hex>", path relative to that folder's
// parent ("node_modules/a/node_modules/b"), the digest over the
// package's own files (each relative path, NUL, size, NUL, content; its
// nested node_modules left to their own lines), sorted by path. A
// symbolic link in place of a package prints "npm:<path>=link:<target>".
// A package.json without a version prints version "?".
const npmTreeJS = `
const fs = require('fs'), path = require('path'), crypto = require('crypto');
const out = [];
function files(dir, rel, acc) {
  for (const e of fs.readdirSync(dir, {withFileTypes: true}).sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) {
    const r = rel ? rel + '/' + e.name : e.name;
    if (!rel && e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, r, acc);
    else if (e.isSymbolicLink()) acc.push([r, 'link:' + fs.readlinkSync(p)]);
    else if (e.isFile()) acc.push([r, fs.readFileSync(p)]);
  }
  return acc;
}
function pkg(dir, rel) {
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink()) { out.push('npm:' + rel + '=link:' + fs.readlinkSync(dir)); return; }
  if (!st.isDirectory()) return;
  let version = '?';
  try { version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'))).version || '?'; } catch (e) {}
  const h = crypto.createHash('sha256');
  for (const [r, c] of files(dir, '', [])) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c);
    h.update(r); h.update('\0'); h.update(String(b.length)); h.update('\0'); h.update(b);
  }
  out.push('npm:' + rel + '=' + version + ' sha256:' + h.digest('hex'));
  modules(path.join(dir, 'node_modules'), rel + '/node_modules');
}
function modules(nm, rel) {
  let ents;
  try { ents = fs.readdirSync(nm, {withFileTypes: true}); } catch (e) { return; }
  for (const e of ents) {
    if (e.name.startsWith('.')) continue;
    if (e.name.startsWith('@') && e.isDirectory()) {
      for (const s of fs.readdirSync(path.join(nm, e.name))) pkg(path.join(nm, e.name, s), rel + '/' + e.name + '/' + s);
      continue;
    }
    pkg(path.join(nm, e.name), rel + '/' + e.name);
  }
}
modules(process.argv[1], 'node_modules');
out.sort();
process.stdout.write(out.map(l => l + '\n').join(''));
`

// npmTreeScript runs npmTreeJS (its $0) over the image's global
// node_modules (npm root -g) and appends its lines to the probe's
// packages.txt, after the Debian packages.
const npmTreeScript = `set -eu; root=$(npm root -g); node -e "$0" "$root" >>` + ProbeDir + `/packages.txt`

// npmTreeState adds the npm tree of the image st to the probe's output
// (probe, the state of the probe's ProbeDir mount): every package the
// npm layer installed, nested dependencies included, with its version
// and a digest of its files. The list joins the Debian packages in the
// image's "packages" input, so images.lock's packages digest covers the
// whole npm tree and srb build --verify fails when a dependency resolves
// to another version; [PackagesMoved] names it. Only a stage that
// declares npm packages gets this step (the others' probes, and their
// packages digests, are unchanged).
func npmTreeState(field string, st, probe llb.State) llb.State {
	run := st.Run(llb.Args([]string{"/bin/sh", "-c", npmTreeScript, npmTreeJS}), llb.User("root"),
		llb.WithCustomName(field+": the npm tree (every package, its version and a digest of its files)"))
	return run.AddMount(ProbeDir, probe)
}

// packagesDir is where srb build keeps each image's probed packages list
// (Debian packages and the npm tree), by the digest images.lock records:
// root/packages/<hex>.txt.
func packagesDir(root string) string { return filepath.Join(root, "packages") }

// RememberPackages keeps the probed packages list of every built image
// under root (the image build folder, [PrepareOptions.Root]), named by
// its digest, so a later build whose packages digest differs from the
// lockfile's can name what moved ([PackagesMoved]). An error is a
// harness fault writing the cache.
func RememberPackages(root string, built []*Built) error {
	dir := packagesDir(root)
	for _, b := range built {
		if b.Probed == nil || !strings.HasPrefix(b.Probed.PackagesDigest, "sha256:") {
			continue
		}
		p := filepath.Join(dir, strings.TrimPrefix(b.Probed.PackagesDigest, "sha256:")+".txt")
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("remember packages: %w", err)
		}
		tmp, err := os.CreateTemp(dir, ".packages-*")
		if err != nil {
			return fmt.Errorf("remember packages: %w", err)
		}
		_, werr := tmp.WriteString(b.Probed.Packages)
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), p)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("remember packages: %w", werr)
		}
	}
	return nil
}

// maxMoved caps the packages [PackagesMoved] names for one image.
const maxMoved = 20

// PackagesMoved names what moved between the packages list images.lock
// recorded for stage (want) and the one just built (got): "npm:<path>
// <was> → <now>", "<path> is new (<now>)" or "<path> is gone (was
// <was>)", one per package (Debian "name=version" lines and the npm tree
// alike), at most maxMoved then "… and N more". It returns nil when the
// digests agree, and one sentence saying the earlier list is not on this
// machine when root holds no list by the recorded digest (it is kept only
// where that build ran).
func PackagesMoved(root string, want, got *Lock, stage string) []string {
	if want == nil || got == nil {
		return nil
	}
	was, now := want.Images[stage].Inputs["packages"], got.Images[stage].Inputs["packages"]
	if was == "" || now == "" || was == now {
		return nil
	}
	read := func(d string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(packagesDir(root), strings.TrimPrefix(d, "sha256:")+".txt"))
		return string(b), err == nil
	}
	a, ok := read(was)
	if !ok {
		return []string{fmt.Sprintf("the packages list of %s (%.19s) is not kept on this machine, so what moved cannot be named", stage, was)}
	}
	b, ok := read(now)
	if !ok {
		return []string{fmt.Sprintf("the packages list of %s (%.19s) is not kept on this machine, so what moved cannot be named", stage, now)}
	}
	return diffPackages(a, b)
}

// diffPackages compares two packages lists ("key=value" lines, key the
// Debian package or "npm:<path>").
func diffPackages(was, now string) []string {
	parse := func(s string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(s, "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				m[k] = v
			}
		}
		return m
	}
	a, b := parse(was), parse(now)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var out []string
	for _, k := range ks {
		x, inA := a[k]
		y, inB := b[k]
		switch {
		case inA && inB && x != y:
			out = append(out, fmt.Sprintf("%s %s → %s", k, x, y))
		case !inA:
			out = append(out, fmt.Sprintf("%s is new (%s)", k, y))
		case !inB:
			out = append(out, fmt.Sprintf("%s is gone (was %s)", k, x))
		}
	}
	if len(out) > maxMoved {
		out = append(out[:maxMoved], fmt.Sprintf("… and %d more", len(out)-maxMoved))
	}
	return out
}
