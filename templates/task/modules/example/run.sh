#!/bin/bash
# An example module of kind program (weight 0: it reports and decides
# nothing). It follows the module-result contract: read the SRB_*
# environment, write one JSON object with "checks" to $SRB_RESULT.
set -euo pipefail
tree="$SRB_SUITE_WORK/ledger/default/tree"
count=$(find "$tree" -type f 2>/dev/null | wc -l)
printf '{"checks": [{"id": "files-built", "verdict": "pass", "weight": 0, "summary": "the default build left %s file(s)"}]}\n' "$count" > "$SRB_RESULT"
