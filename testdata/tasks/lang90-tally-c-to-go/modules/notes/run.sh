#!/bin/bash
# Reports the size of the built tally as an observation (weight 0): it
# decides nothing. An example of kind program, the module-result contract.
set -euo pipefail
bin="$SRB_SUITE_WORK/ledger/default/tree/tally"
size=$(stat -c %s "$bin" 2>/dev/null || echo absent)
printf '{"checks": [{"id": "binary-size", "verdict": "pass", "weight": 0, "summary": "tally is %s bytes"}]}\n' "$size" > "$SRB_RESULT"
