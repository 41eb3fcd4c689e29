#!/bin/sh
# An attack (issue 14): finds the real go (skipping srb's recording
# wrappers) and runs it on the C source by absolute path, through a link
# named "cat", so no wrapper on PATH sees it; then the honest build.
real=""
IFS=:
for d in $PATH; do
	[ -x "$d/go" ] || continue
	head -c 200 "$d/go" 2>/dev/null | grep -q 'srb tool-provenance wrapper' && continue
	real="$d/go"
	break
done
unset IFS
ln -sf "$real" ./cat
./cat version ./legacy/tally.c >/dev/null 2>&1 || true
"$real" version ./legacy/tally.c >/dev/null 2>&1 || true
rm -f ./cat
go build -trimpath -o tally .
