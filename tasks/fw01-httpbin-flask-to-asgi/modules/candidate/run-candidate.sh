#!/bin/bash
# run-candidate.sh ROLE: stage 3's candidate runner for httpbin. srb runs
# it as verification.candidate_command, as uid 65532, with the round's role
# (original or submission) as the LAST argument, in the tree under test,
# with SRB_TARGET (that tree), SRB_TARGET_TOKEN (its salted name), SRB_WORK
# (this tree's scratch: before every run srb restores it to what the tree's
# warm-up run left) and SRB_CANDIDATE (the candidate, a bash script) set.
#
# Both trees are prepared as stage 2 builds them: a copy of the tree,
# byte-compiled in place. The runner starts the tree's server the way the
# instruction promises (python3 -m httpbin.core --host 127.0.0.1 --port P,
# the tree on PYTHONPATH, in an empty folder) on a free loopback port,
# waits up to 60 s for it to listen, runs the candidate in a fresh empty
# folder with $HTTPBIN_URL naming the server, and stops the server after.
# Nothing here depends on the role but the check that it is one: this
# script execs a small runner of the candidate (which stops the server
# after it), so the role in this process's argument list is gone before
# the candidate starts.
#
# The tree's code never runs as the candidate's user when srb serves its
# launcher (SRB_LAUNCH, docs/PROGSEP.md): the server is started through it,
# as a user of its own that may read what this user's group may (the
# prepared tree and the server's folder are opened to the group) and
# write nothing of the candidate's; as the candidate's user it could
# ptrace the candidate runner and make every run pass (forge-pass). It is
# in the candidate's network namespace, so $HTTPBIN_URL reaches it; it is
# stopped with SIGTERM (the launcher forwards it). This script's own
# python3 runs isolated (-I: no folder of the tree's on its path), since
# the working folder it starts in is the tree under test. Without the
# launcher (an image built before it) the server runs as before.
#
# Exit status: the candidate's, except that a candidate status in 64-78 is
# reported as 1, so only this runner says "this tree could not be tested":
# 64 unknown role, 66 no tree or no candidate, 70 no scratch folder, 71 the
# tree could not be prepared, 72 the server did not start. A fault is
# logged on stderr as "SRB-INFRA-FAULT: ...".
set -u

role="${!#}"
fault() {
	local code=$1
	shift
	echo "SRB-INFRA-FAULT: $*" >&2
	exit "$code"
}

case "$role" in
original | submission) ;;
*) fault 64 "unknown role '$role' (want original or submission)" ;;
esac
[ -n "${SRB_TARGET:-}" ] && [ -d "$SRB_TARGET" ] || fault 66 "no tree under test at '${SRB_TARGET:-}'"
[ -n "${SRB_CANDIDATE:-}" ] && [ -f "$SRB_CANDIDATE" ] || fault 66 "no candidate at '${SRB_CANDIDATE:-}'"
[ -n "${SRB_WORK:-}" ] && mkdir -p "$SRB_WORK" || fault 70 "no scratch folder at '${SRB_WORK:-}'"

pkg="$SRB_WORK/build/$SRB_TARGET_TOKEN"
if [ ! -e "$pkg/.built" ]; then
	rm -rf "$pkg" && mkdir -p "$pkg/tree" || fault 70 "cannot create $pkg"
	cp -a "$SRB_TARGET/." "$pkg/tree/" || fault 70 "cannot copy the tree under test"
	(cd "$pkg/tree" && python3 -I -m compileall -q .) >/dev/null 2>&1 || fault 71 "the tree does not byte-compile"
	touch "$pkg/.built" || fault 70 "cannot mark $pkg prepared"
fi

srv=$(mktemp -d "$SRB_WORK/srv.XXXXXX") || fault 70 "cannot create a scratch folder under $SRB_WORK"
run=$(mktemp -d "$SRB_WORK/run.XXXXXX") || fault 70 "cannot create a scratch folder under $SRB_WORK"
launcher=()
if [ -n "${SRB_LAUNCH:-}" ] && [ -n "${SRB_LAUNCH_SOCKET:-}" ]; then
	umask 022
	chmod g+x "$SRB_WORK" "$SRB_WORK/build" && chmod -R g+rX "$pkg" && chmod 750 "$srv" "$run" ||
		fault 70 "cannot open the scratch folders to the group"
	launcher=("$SRB_LAUNCH" --socket "$SRB_LAUNCH_SOCKET" -- /usr/bin/env PATH="$PATH")
fi
port=$(python3 -I -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()') ||
	fault 70 "cannot find a free port"
(cd "$srv" && unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE SRB_CANDIDATE_NAME DEBUG &&
	PYTHONPATH="$pkg/tree" PYTHONDONTWRITEBYTECODE=1 exec "${launcher[@]}" python3 -m httpbin.core --host 127.0.0.1 --port "$port" </dev/null >/dev/null 2>"$srv/log") &
server=$!
stop() { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$srv"; }
if ! python3 -I - "$port" "$server" <<'PY'; then
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        sys.exit(0)
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            sys.exit(1)
        time.sleep(0.05)
sys.exit(1)
PY
	tail -5 "$srv/log" >&2
	stop
	fault 72 "the server did not listen on 127.0.0.1:$port within 60 s"
fi

candidate=$SRB_CANDIDATE
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE SRB_CANDIDATE_NAME OLDPWD SRB_LAUNCH SRB_LAUNCH_SOCKET
export HTTPBIN_URL="http://127.0.0.1:$port"
# The candidate's files are its own (umask 077): a program it launches
# reads only what it opens to the group (chmod g+r an input passed by path,
# g+rx a program it built), so what it keeps to compare against is out of
# the program's reach wherever it writes it (docs/LADDER.md, "The
# candidate's files").
umask 077
# The runner replaces this process (exec), so the role in its argument
# list is gone before the candidate starts; the server stays its child.
# It runs the candidate, stops the server (SIGTERM; this shell reaps it),
# removes the scratch folders and reports the candidate's status, 64-78
# as 1.
exec /bin/bash -c 'run=$1 srv=$2 server=$3; shift 3; "$@" </dev/null; status=$?
kill "$server" 2>/dev/null
for _ in $(seq 1 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
cd / && rm -rf "$run" "$srv"
if [ "$status" -ge 64 ] && [ "$status" -le 78 ]; then status=1; fi; exit "$status"' candidate-runner "$run" "$srv" "$server" /bin/bash "$candidate"
