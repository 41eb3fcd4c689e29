#!/usr/bin/env bash
# Break attempt (issue 14), stage 2 with --host as root: what the
# submission's processes leave in the machine's shared folders and in the
# kernel's keyrings outlives the stage and the ladder. Grades the fixture
# stage2-leftover (go-port whose program leaves srb-brk-stage2-leftover.<uid>
# in /tmp, /var/tmp, /dev/shm and as a world-viewable key in @u), then lists
# what is left. Holds when nothing is printed after "left:".
# Usage: stage2-leftover.sh SRB [WORK]
set -euo pipefail
SRB=$(realpath "$1"); WORK=${2:-$(mktemp -d)}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$WORK" && cd "$WORK"
rm -rf tasks statea out-left
cp -r "$REPO/testdata/tasks" "$REPO/testdata/statea" .
OPENAI_API_KEY=never-used ANTHROPIC_API_KEY=never-used "$SRB" ladder lang90-tally-c-to-go --host \
	--submission-fixture "$REPO/testdata/submissions/lang90-tally-c-to-go/stage2-leftover" \
	--results out-left --jobs 1 2>/dev/null | grep '^expect: ' || true
echo "left:"
ls -l /tmp/srb-brk-stage2-leftover.* /var/tmp/srb-brk-stage2-leftover.* /dev/shm/srb-brk-stage2-leftover.* 2>/dev/null || true
grep srb-brk-stage2-leftover /proc/keys || true
