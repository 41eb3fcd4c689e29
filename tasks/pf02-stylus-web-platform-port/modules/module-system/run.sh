#!/bin/bash
# Reports the built tree's module system (weight 0: it decides nothing;
# stage 1's commonjs_retired judges it). Reads the tree stage 2 built from
# the ledger as data, runs none of its code. Observations: package.json's
# "type", and the shipped .js files (test/ and node_modules/ aside, bin/stylus
# included) that still contain require(, module.exports or __dirname.
set -euo pipefail
tree="$SRB_SUITE_WORK/ledger/default/tree"
type=$(sed -n 's/^[[:space:]]*"type"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$tree/package.json" 2>/dev/null | head -n 1)
total=0 cjs=0
while IFS= read -r -d '' f; do
	total=$((total + 1))
	if grep -Eq 'require\(|module\.exports|__dirname' "$f"; then
		cjs=$((cjs + 1))
	fi
done < <(find "$tree" \( -path "$tree/test" -o -path "$tree/node_modules" -o -path "$tree/.git" \) -prune -o -type f \( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' -o -path "$tree/bin/stylus" \) -print0)
printf '{"checks": [{"id": "package-type", "verdict": "pass", "weight": 0, "summary": "package.json type: %s"}, {"id": "commonjs-files", "verdict": "pass", "weight": 0, "summary": "%d of %d shipped JavaScript files contain require(, module.exports or __dirname"}]}\n' "${type:-absent}" "$cjs" "$total" >"$SRB_RESULT"
