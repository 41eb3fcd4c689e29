#!/bin/sh
# An attack (issue 14): moves every srb recording-wrapper folder on PATH
# aside, puts a go wrapper of its own first on PATH (it runs the real go
# by absolute path, recording nothing), then does c-consulted's build.
real=""
own="$PWD/.bin"
mkdir -p "$own"
newpath="$own"
IFS=:
for d in $PATH; do
	if [ -f "$d/go" ] && head -c 200 "$d/go" 2>/dev/null | grep -q 'srb tool-provenance wrapper'; then
		mv "$d" "$d.aside" 2>/dev/null
		continue
	fi
	[ -z "$real" ] && [ -x "$d/go" ] && real="$d/go"
	newpath="$newpath:$d"
done
unset IFS
printf '#!/bin/sh\nexec %s "$@"\n' "$real" > "$own/go"
chmod +x "$own/go"
PATH="$newpath"
export PATH
go version ./legacy/tally.c >/dev/null 2>&1 || true
go build -trimpath -o tally .
