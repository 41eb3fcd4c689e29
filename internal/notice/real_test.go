package notice

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// needRegistries skips tests that reach the module proxy, the npm
// registry or the Debian mirror when -short is given or SRB_OFFLINE=1
// (as internal/source's real tests do).
func needRegistries(t testing.TB) {
	t.Helper()
	if testing.Short() || os.Getenv("SRB_OFFLINE") == "1" {
		t.Skip("reaches a registry (skipped with -short or SRB_OFFLINE=1)")
	}
}

// yamlNOTICE is go-yaml v3.0.1's NOTICE file, byte for byte.
const yamlNOTICE = `Copyright 2011-2016 Canonical Ltd.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
`

func terms(id, from string, paths ...string) []OtherTerm {
	var ts []OtherTerm
	for _, p := range paths {
		ts = append(ts, OtherTerm{Path: p, ID: id, From: from})
	}
	return ts
}

func join(tss ...[]OtherTerm) []OtherTerm {
	var out []OtherTerm
	for _, ts := range tss {
		out = append(out, ts...)
	}
	return out
}

// realFindings are the four real State A sources (internal/source's
// realSources, same pins) with what their archives hold, checked by hand
// once by unpacking each archive and reading its licence files and the
// head of every file that mentions a licence (2026-11-30):
//
//   - go-yaml v3.0.1: LICENSE says MIT for apic.go emitterc.go parserc.go
//     readerc.go scannerc.go writerc.go yamlh.go yamlprivateh.go (ported
//     from libyaml; each of those files carries the MIT text in its
//     header too) and Apache-2.0 for "all the remaining project files"
//     (their headers carry the Apache-2.0 notice; limit_test.go has no
//     header). NOTICE is Canonical's Apache-2.0 notice. No other licence
//     file.
//   - acorn 8.14.0 (npm): LICENSE is MIT, "Copyright (C) 2012-2022 by
//     various contributors (see AUTHORS)". dist/*.js and package.json
//     mention licences but no file carries a header of other terms.
//   - libsodium 1.0.18 (Debian's orig tarball; no configure, config.guess
//     or ltmain.sh in it): LICENSE is ISC. m4/ax_check_compile_flag,
//     ax_check_define, ax_check_link_flag, ax_pthread and ax_tls are
//     GPL-3.0-or-later with the Autoconf macro exception ("As a special
//     exception, the respective Autoconf Macro's copyright owner…");
//     ax_check_gnu_make and ax_valgrind_check carry the FSF all-permissive
//     notice; the argon2 sources, the BLAKE2 reference sources and
//     contrib/Findsodium.cmake are CC0 1.0; the SHA-2 "cp" sources and
//     the scrypt sources carry the 2-clause BSD text (Colin Percival).
//     crypto_scrypt-common.c and scrypt_platform.c carry a one-sentence
//     permissive grant (Alexander Peslyak) that licensecheck does not
//     identify, so they are not listed: a known gap.
//   - cmark 0.30.2 (Debian's orig tarball): COPYING is BSD-2-Clause for
//     the project, then MIT for houdini.h houdini_href_e.c
//     houdini_html_e.c houdini_html_u.c (Vicent Martí), buffer.h buffer.c
//     chunk.h (GitHub), utf8.c (utf8proc) and normalize.py (Karl Dubost),
//     CC-BY-SA 4.0 for test/spec.txt (whose front matter says so too), and
//     BSD-2-Clause for the rest of test/. Beyond COPYING: FindAsan.cmake
//     carries the MIT text (Matthew Arsenault) and bench/statistics.py the
//     Apache-2.0 notice (Steven D'Aprano).
var realFindings = []struct {
	name   string
	stateA task.StateA
	digest string
	want   Finding
}{
	{"gomod", task.StateA{Project: "go-yaml", Version: "v3.0.1", Source: task.Source{Kind: "gomod", Module: "gopkg.in/yaml.v3", Version: "v3.0.1"}},
		"68fb9284820eb8c0b2029dbf44f66a2fd70b8bcfce1824d3f55ed691423bce68",
		Finding{
			Top: "go-yaml-v3.0.1", Expression: "Apache-2.0 AND MIT", Main: "Apache-2.0",
			Copyright: []string{
				"Copyright (c) 2006-2010 Kirill Simonov",
				"Copyright (c) 2006-2011 Kirill Simonov",
				"Copyright (c) 2011-2019 Canonical Ltd",
				"Copyright 2011-2016 Canonical Ltd.",
			},
			LicenceFiles: []string{"LICENSE"},
			OtherTerms: terms("MIT", "LICENSE, header", "apic.go", "emitterc.go", "parserc.go", "readerc.go",
				"scannerc.go", "writerc.go", "yamlh.go", "yamlprivateh.go"),
			Notices: []NoticeFile{{Path: "NOTICE", Text: yamlNOTICE}},
		}},
	{"npm", task.StateA{Project: "acorn", Version: "8.14.0", Source: task.Source{Kind: "npm", Package: "acorn", Version: "8.14.0"}},
		"0e8fe53573c2f2d046bf2716118853fd981f0439318cb7a68acb185a45503ac7",
		Finding{
			Top: "acorn-8.14.0", Expression: "MIT", Main: "MIT",
			Copyright:    []string{"Copyright (C) 2012-2022 by various contributors (see AUTHORS)"},
			LicenceFiles: []string{"LICENSE"},
			Declared:     "MIT", // package.json
		}},
	{"debian-libsodium", task.StateA{Project: "libsodium", Version: "1.0.18", Source: task.Source{Kind: "debian", Package: "libsodium", Version: "1.0.18-1+deb12u1"}},
		"7e6c4f1dac9d1f2ee17b18e00767598ad8fc794d23880793aeb8ec4962024f92",
		Finding{
			Top: "libsodium-1.0.18", Expression: "ISC", Main: "ISC",
			Copyright:    []string{"Copyright (c) 2013-2019 Frank Denis <j at pureftpd dot org>"},
			LicenceFiles: []string{"LICENSE"},
			OtherTerms: sortTerms(join(
				terms("CC0-1.0", "header", "contrib/Findsodium.cmake",
					"src/libsodium/crypto_generichash/blake2b/ref/blake2b-load-sse2.h",
					"src/libsodium/crypto_generichash/blake2b/ref/blake2b-load-sse41.h",
					"src/libsodium/crypto_generichash/blake2b/ref/blake2b-ref.c",
					"src/libsodium/crypto_pwhash/argon2/argon2-core.c",
					"src/libsodium/crypto_pwhash/argon2/argon2-core.h",
					"src/libsodium/crypto_pwhash/argon2/argon2-fill-block-avx2.c",
					"src/libsodium/crypto_pwhash/argon2/argon2-fill-block-avx512f.c",
					"src/libsodium/crypto_pwhash/argon2/argon2-fill-block-ref.c",
					"src/libsodium/crypto_pwhash/argon2/argon2-fill-block-ssse3.c",
					"src/libsodium/crypto_pwhash/argon2/argon2.c",
					"src/libsodium/crypto_pwhash/argon2/argon2.h"),
				terms("GPL-3.0-or-later WITH Autoconf-exception-macro", "header",
					"m4/ax_check_compile_flag.m4", "m4/ax_check_define.m4", "m4/ax_check_link_flag.m4",
					"m4/ax_pthread.m4", "m4/ax_tls.m4"),
				terms("FSFAP", "header", "m4/ax_check_gnu_make.m4", "m4/ax_valgrind_check.m4"),
				terms("BSD-2-Clause", "header",
					"src/libsodium/crypto_hash/sha256/cp/hash_sha256_cp.c",
					"src/libsodium/crypto_hash/sha512/cp/hash_sha512_cp.c",
					"src/libsodium/crypto_pwhash/scryptsalsa208sha256/crypto_scrypt.h",
					"src/libsodium/crypto_pwhash/scryptsalsa208sha256/nosse/pwhash_scryptsalsa208sha256_nosse.c",
					"src/libsodium/crypto_pwhash/scryptsalsa208sha256/pbkdf2-sha256.c",
					"src/libsodium/crypto_pwhash/scryptsalsa208sha256/pbkdf2-sha256.h",
					"src/libsodium/crypto_pwhash/scryptsalsa208sha256/sse/pwhash_scryptsalsa208sha256_sse.c"),
			)),
		}},
	{"debian-cmark", task.StateA{Project: "cmark", Version: "0.30.2", Source: task.Source{Kind: "debian", Package: "cmark", Version: "0.30.2-6"}},
		"07381309109428a5ae9cc51d6518acc7fc04488354d06d9f6a94441354975f3b",
		Finding{
			Top: "cmark-0.30.2", Expression: "BSD-2-Clause AND CC-BY-SA-4.0 AND MIT", Main: "BSD-2-Clause",
			Copyright: []string{
				"Copyright (c) 2014, John MacFarlane",
				"Copyright (C) 2012 Vicent Martí",
				"Copyright (C) 2012 Github, Inc.",
				"Copyright (C) 2009 Public Software Group e. V., Berlin, Germany.",
				"Copyright 2013 Karl Dubost",
				"Copyright (c) 2013 Karl Dubost",
				"Copyright (C) 2014-15 John MacFarlane",
			},
			LicenceFiles: []string{"COPYING"},
			OtherTerms: sortTerms(join(
				terms("MIT", "header", "FindAsan.cmake"),
				terms("Apache-2.0", "header", "bench/statistics.py"),
				terms("MIT", "COPYING", "src/buffer.c", "src/buffer.h", "src/chunk.h", "src/houdini.h",
					"src/houdini_href_e.c", "src/houdini_html_e.c", "src/houdini_html_u.c", "src/utf8.c",
					"test/normalize.py"),
				terms("CC-BY-SA-4.0", "COPYING, header", "test/spec.txt"),
			)),
		}},
}

func TestRealArchives(t *testing.T) {
	needRegistries(t)
	for _, r := range realFindings {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			a := r.stateA
			a.SHA256 = r.digest
			c := &source.Cache{Dir: t.TempDir()}
			e, err := c.Materialise(context.Background(), a, ".", nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Analyse(e.Archive)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(r.want, *got); diff != "" {
				t.Errorf("Analyse(%s) (-want +got):\n%s", r.name, diff)
			}
			// The declared licence of the real task agrees with the archive.
			declared := map[string]string{"gomod": "Apache-2.0 AND MIT", "npm": "MIT", "debian-libsodium": "ISC", "debian-cmark": "BSD-2-Clause AND MIT AND CC-BY-SA-4.0"}[r.name]
			tk := &task.Task{ID: "real", StateA: a}
			tk.StateA.License = declared
			if ps := Check(tk, e.Archive); len(ps) != 0 {
				t.Errorf("Check with %q: %v", declared, ps)
			}
		})
	}
}
