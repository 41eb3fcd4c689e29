#!/usr/bin/env bash
# Runs every fuzz target of the module briefly: each `func FuzzX(f *testing.F)`
# in a _test.go file (found by grep, so targets other packages add run too)
# gets `go test -run '^$' -fuzz '^FuzzX$' -fuzztime T ./pkg`, one at a time.
# Their seed corpora are committed under <pkg>/testdata/fuzz/FuzzX/ (plain
# `go test` runs them as unit tests); a failure leaves the failing input in
# that folder: commit it with the fix, so it stays a regression test.
#
#   bash scripts/fuzz.sh            every target, 10 s each (SRB_FUZZTIME)
#   bash scripts/fuzz.sh --list     print "pkg target" per line, run nothing
#   SRB_FUZZTIME=1m bash scripts/fuzz.sh FuzzParseStage   only the targets named
#
# Exit status: 0 when every target ran clean, 1 when one failed (all are
# still run), 2 when a named target does not exist.
set -uo pipefail
cd "$(dirname "$0")/.."

fuzztime=${SRB_FUZZTIME:-10s}
list=0
if [[ ${1:-} == --list ]]; then
	list=1
	shift
fi

# "pkgdir target" per line, sorted; vendor and testdata folders skipped.
mapfile -t found < <(grep -rEo --include='*_test.go' --exclude-dir=vendor --exclude-dir=testdata --exclude-dir=.git \
	'^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . |
	sed -E 's|^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*$|\1 \2|; s|^\./[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*$|. \1|' | sort -u)

if (($# > 0)); then
	want=" $* "
	picked=()
	for line in "${found[@]}"; do
		[[ $want == *" ${line#* } "* ]] && picked+=("$line")
	done
	for name in "$@"; do
		if ! printf '%s\n' "${picked[@]}" | grep -q " $name\$"; then
			echo "fuzz.sh: no fuzz target $name in the module" >&2
			exit 2
		fi
	done
	found=("${picked[@]}")
fi

if ((list)); then
	printf '%s\n' "${found[@]}"
	exit 0
fi

echo "fuzz.sh: ${#found[@]} target(s), ${fuzztime} each:"
printf '  %s\n' "${found[@]}"
failed=()
for line in "${found[@]}"; do
	pkg=${line% *}
	target=${line#* }
	echo "== ${target} (./${pkg})"
	for attempt in 1 2; do
		out=$(mktemp)
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "./${pkg}" 2>&1 | tee "$out"
		rc=${PIPESTATUS[0]}
		# Go's fuzzing engine can stop with "context deadline exceeded" when
		# -fuzztime runs out while it is minimising a new interesting input:
		# no input failed and none was written. That is the engine's fault,
		# not a finding: run the target once more. A real failure writes
		# its input ("Failing input written to") and is never retried.
		if ((rc != 0)) && ((attempt == 1)) && grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written to' "$out"; then
			echo "fuzz.sh: ${target}: the fuzzing engine stopped at its deadline with no failing input; running it once more"
			rm -f "$out"
			continue
		fi
		rm -f "$out"
		break
	done
	if ((rc != 0)); then
		failed+=("$target")
	fi
done
if ((${#failed[@]} > 0)); then
	echo "fuzz.sh: failed: ${failed[*]} (the failing inputs are under <pkg>/testdata/fuzz/<target>/)" >&2
	exit 1
fi
echo "fuzz.sh: all ${#found[@]} target(s) ran clean"
