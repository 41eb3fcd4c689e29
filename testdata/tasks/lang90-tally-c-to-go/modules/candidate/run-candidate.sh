#!/bin/bash
# run-candidate.sh ROLE: stage 3's candidate runner for tally. srb runs it
# as verification.candidate_command with the round's role (original or
# submission) as the LAST argument, in the working tree under test, with
# SRB_TARGET (that tree), SRB_TARGET_TOKEN (its salted name), SRB_WORK
# (this tree's scratch: before every run srb restores it to what the
# tree's warm-up run left, so a build cached there is reused and nothing a
# run writes reaches the next) and SRB_CANDIDATE (the candidate file) set.
#
# It builds the tree once per token (State A with make and cc, a
# submission with go build, as the task declares) and runs the candidate
# with bash in a fresh empty folder, with TALLY naming a copy of the built
# program. The candidate sees neither the role nor the tree: this script
# execs a small runner in its place before the candidate starts, since
# its own argument list (/proc/<pid>/cmdline, which any process may read)
# ends with the role.
#
# Exit status: the candidate's, except that a candidate status in 64-78 is
# reported as 1, so only this runner can say "this tree could not be
# tested": 64 unknown role, 66 no tree or no candidate, 70 no scratch
# folder, 71 the tree does not build. A fault is logged on stderr as
# "SRB-INFRA-FAULT: ..." and appended to $SRB_WORK/faults/<token>.<pid>.
set -u

role="${!#}"
fault() {
	local code=$1
	shift
	echo "SRB-INFRA-FAULT: $*" >&2
	if [ -n "${SRB_WORK:-}" ] && mkdir -p "$SRB_WORK/faults" 2>/dev/null; then
		printf '%s\texit %s\t%s\n' "${SRB_TARGET_TOKEN:-unknown}" "$code" "$*" >>"$SRB_WORK/faults/${SRB_TARGET_TOKEN:-unknown}.$$"
	fi
	exit "$code"
}

case "$role" in
original | submission) ;;
*) fault 64 "unknown role '$role' (want original or submission)" ;;
esac
[ -n "${SRB_TARGET:-}" ] && [ -d "$SRB_TARGET" ] || fault 66 "no tree under test at '${SRB_TARGET:-}'"
[ -n "${SRB_CANDIDATE:-}" ] && [ -f "$SRB_CANDIDATE" ] || fault 66 "no candidate at '${SRB_CANDIDATE:-}'"
[ -n "${SRB_WORK:-}" ] && mkdir -p "$SRB_WORK" || fault 70 "no scratch folder at '${SRB_WORK:-}'"

out="$SRB_WORK/build/$SRB_TARGET_TOKEN"
if [ ! -e "$out/.built" ]; then
	rm -rf "$out" && mkdir -p "$out/src" || fault 70 "cannot create $out"
	# Build a copy, so the tree under test stays as it was submitted.
	cp -a "$SRB_TARGET/." "$out/src/" || fault 70 "cannot copy the tree under test"
	case "$role" in
	original)
		(cd "$out/src" && make -s tally) >"$out/build.log" 2>&1 ||
			fault 71 "make failed: $(tail -c 600 "$out/build.log")"
		;;
	submission)
		(cd "$out/src" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod GOPROXY=off \
			GOCACHE="${GOCACHE:-$HOME/.cache/go-build}" GOPATH="$out/gopath" go build -trimpath -o tally .) >"$out/build.log" 2>&1 ||
			fault 71 "go build failed: $(tail -c 600 "$out/build.log")"
		;;
	esac
	[ -x "$out/src/tally" ] || fault 71 "the build left no tally program"
	cp "$out/src/tally" "$out/tally" && touch "$out/.built" || fault 70 "cannot keep the built program"
fi

run=$(mktemp -d "$SRB_WORK/run.XXXXXX") || fault 70 "cannot create a scratch folder under $SRB_WORK"
cp "$out/tally" "$run/tally" || fault 70 "cannot copy the built program"
candidate=$SRB_CANDIDATE
export TALLY="$run/tally"
# The program under test never runs as the candidate's user when srb
# serves its launcher (SRB_LAUNCH): TALLY is then a wrapper that has the
# launcher run the built program as a user of its own, apart from the
# candidate's processes and files (it could otherwise ptrace this runner
# and make every run pass: docs/LADDER.md, "Programs under test run
# apart"). That user may read what this user's group may, so the scratch
# folder is opened to the group, never made writable by it; what the
# candidate writes is its own unless it opens it (umask 077 below).
launch=""
if [ -n "${SRB_LAUNCH:-}" ] && [ -n "${SRB_LAUNCH_SOCKET:-}" ]; then
	launch="$run.launch"
	umask 022
	chmod g+x "$SRB_WORK" && chmod 750 "$run" && mkdir "$launch" &&
		printf '#!/bin/sh\nexec %q --socket %q -- %q "$@"\n' "$SRB_LAUNCH" "$SRB_LAUNCH_SOCKET" "$run/tally" >"$launch/tally" &&
		printf '#!/bin/sh\nexec %q --socket %q --copy-cwd -- "$@"\n' "$SRB_LAUNCH" "$SRB_LAUNCH_SOCKET" >"$launch/srb-run" &&
		chmod 755 "$launch" "$launch/tally" "$launch/srb-run" || fault 70 "cannot write the launcher's wrappers"
	TALLY="$launch/tally"
else
	launch="$run.launch"
	mkdir "$launch" && printf '#!/bin/sh\nexec "$@"\n' >"$launch/srb-run" && chmod 755 "$launch" "$launch/srb-run" ||
		fault 70 "cannot write $launch/srb-run"
fi
# SRB_RUN runs any other command the launcher's way, in a copy of its
# working folder (--copy-cwd: what it writes there comes back into the
# candidate's folder when it ends), as pf02's, fw02's and several other
# tasks' runners offer; TALLY_BIN is the built program itself, for a
# command run that way ("$SRB_RUN" sh -c '"$1" <in >out' sh "$TALLY_BIN").
# Without the launcher SRB_RUN runs its command as it is.
export SRB_RUN="$launch/srb-run" TALLY_BIN="$run/tally"
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE SRB_CANDIDATE_NAME OLDPWD SRB_LAUNCH SRB_LAUNCH_SOCKET
# The candidate's files are its own (umask 077): a program it launches
# reads only what it opens to the group (chmod g+r an input passed by path,
# g+rx a program it built), so what it keeps to compare against is out of
# the program's reach wherever it writes it (docs/LADDER.md, "The
# candidate's files").
umask 077
# The runner replaces this process (exec), so the role in its argument
# list is gone before the candidate starts: it runs the candidate, removes
# the scratch folder and reports the candidate's status, 64-78 as 1.
exec /bin/bash -c 'run=$1 launch=$2; shift 2; "$@" </dev/null; status=$?; cd / && rm -rf "$run" ${launch:+"$launch"}
if [ "$status" -ge 64 ] && [ "$status" -le 78 ]; then status=1; fi; exit "$status"' candidate-runner "$run" "$launch" /bin/bash "$candidate"
