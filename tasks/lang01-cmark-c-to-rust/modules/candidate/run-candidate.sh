#!/bin/bash
# run-candidate.sh ROLE: stage 3's candidate runner for cmark. srb runs it
# as verification.candidate_command with the round's role (original or
# submission) as the LAST argument, in the working tree under test, with
# SRB_TARGET (that tree), SRB_TARGET_TOKEN (its salted name), SRB_WORK
# (this tree's scratch: before every run srb restores it to what the
# tree's warm-up run left, so a build cached there is reused and nothing a
# run writes reaches the next) and SRB_CANDIDATE (the candidate file) set.
#
# It builds and installs the tree once per token, the way stage 2 does: a
# tree with Cargo.toml at its top with cargo and install.sh, one without
# (State A) with CMake (so the warm-up run, whatever its candidate, builds
# both trees). Then it runs the candidate, a bash script whatever its file
# is named, in a fresh empty folder with CMARK_PREFIX naming the installed
# tree (bin, include, lib, share as /usr/local would hold them), CMARK a
# command that runs its cmark, and SRB_RUN a command that runs any other
# command (a C program the candidate compiled against CMARK_PREFIX's
# headers and libraries, python3 loading libcmark with ctypes) with
# LD_LIBRARY_PATH set to CMARK_PREFIX/lib.
#
# The launcher (SRB_LAUNCH, docs/PROGSEP.md), when srb serves it: no code
# of the tree runs as the candidate's user (as that user it could ptrace
# the candidate runner and make every run pass: forge-pass). The build
# (cargo and the tree's install.sh, or the tree's CMake files) runs
# through it, as a user of its own, in a copy of the tree with --copy-cwd,
# installed into the copy and moved beside it; CMARK and SRB_RUN run their
# programs through it (SRB_RUN with --copy-cwd: what the program writes in
# the candidate's folder comes back). That user may read what this user's
# group may, so the scratch folder and the build are opened to the group,
# never made writable by it. A program linked with libcmark is the tree's
# code: the prompt says to run every one with SRB_RUN and to judge what it
# prints in bash. cc, readelf, nm and ar run as the candidate: they
# read what was installed and run none of it. Without the launcher (an
# image built before it) everything runs as the candidate's user, CMARK
# naming the installed executable itself and SRB_RUN running its command
# as it is.
#
# The candidate sees neither the role nor the tree: this script execs a
# small runner in its place before the candidate starts, since its own
# argument list (/proc/<pid>/cmdline, which any process may read) ends
# with the role.
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

launcher=()
if [ -n "${SRB_LAUNCH:-}" ] && [ -n "${SRB_LAUNCH_SOCKET:-}" ]; then
	umask 022
	launcher=("$SRB_LAUNCH" --socket "$SRB_LAUNCH_SOCKET")
	chmod g+x "$SRB_WORK" || fault 70 "cannot open the scratch folder to the group"
fi

out="$SRB_WORK/build/$SRB_TARGET_TOKEN"
if [ ! -e "$out/.built" ]; then
	rm -rf "$out" && mkdir -p "$out/src" || fault 70 "cannot create $out"
	# Build a copy, so the tree under test stays as it was submitted. The
	# build installs into _srb_stage inside it (the launcher brings back
	# what a program writes in its working folder; the build folders are
	# removed first, so only the installed tree comes back), then it is
	# moved beside it.
	cp -a "$SRB_TARGET/." "$out/src/" || fault 70 "cannot copy the tree under test"
	if [ ${#launcher[@]} -gt 0 ]; then
		chmod g+x "$SRB_WORK/build" && chmod -R g+rX "$out" || fault 70 "cannot open the build to the group"
		build=("${launcher[@]}" --copy-cwd -- /usr/bin/env PATH="$PATH")
	else
		build=()
	fi
	if [ -f "$out/src/Cargo.toml" ]; then
		(cd "$out/src" && "${build[@]}" /bin/sh -c 'CARGO_HOME="$PWD/_srb_cargo_home" CARGO_NET_OFFLINE=true \
			cargo build --release --offline --locked && /bin/sh install.sh "$PWD/_srb_stage"
			status=$?; rm -rf target _srb_cargo_home; exit $status' &&
			mv _srb_stage "$out/stage") >"$out/build.log" 2>&1 ||
			fault 71 "cargo build or install.sh failed: $(tail -c 600 "$out/build.log")"
	else
		(cd "$out/src" && "${build[@]}" /bin/sh -c 'cmake -S . -B _srb_build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr/local -DCMARK_TESTS=OFF &&
			cmake --build _srb_build --parallel 2 && cmake --install _srb_build --prefix "$PWD/_srb_stage"
			status=$?; rm -rf _srb_build; exit $status' &&
			mv _srb_stage "$out/stage") >"$out/build.log" 2>&1 ||
			fault 71 "the CMake build failed: $(tail -c 600 "$out/build.log")"
	fi
	[ -f "$out/stage/bin/cmark" ] && [ -x "$out/stage/bin/cmark" ] || fault 71 "the build installed no bin/cmark"
	rm -rf "$out/src" || fault 70 "cannot remove the build's copy of the tree"
	if [ ${#launcher[@]} -gt 0 ]; then
		chmod -R g+rX,g-w "$out" || fault 70 "cannot open the build to the group"
	fi
	touch "$out/.built" || fault 70 "cannot mark $out built"
fi
if [ ${#launcher[@]} -gt 0 ]; then
	chmod g+x "$SRB_WORK/build" "$out" || fault 70 "cannot open the build to the group"
fi

run=$(mktemp -d "$SRB_WORK/run.XXXXXX") || fault 70 "cannot create a scratch folder under $SRB_WORK"
prefix="$out/stage"
# The candidate's commands: CMARK runs the installed cmark, SRB_RUN any
# command, with LD_LIBRARY_PATH set for the command only (a candidate that
# set it itself would load the tree's libraries into its own shell and
# tools: the prompt says so).
launch="$run.launch"
if [ ${#launcher[@]} -gt 0 ]; then
	cmark_cmd=$(printf ' %q' "${launcher[@]}" -- "$prefix/bin/cmark")
	run_cmd=$(printf ' %q' "${launcher[@]}" --copy-cwd -- /usr/bin/env PATH="$PATH" LD_LIBRARY_PATH="$prefix/lib")
	cmark="$launch/cmark"
else
	cmark_cmd=""
	run_cmd=$(printf ' %q' /usr/bin/env LD_LIBRARY_PATH="$prefix/lib")
	cmark="$prefix/bin/cmark"
fi
mkdir "$launch" && printf '#!/bin/sh\nexec%s "$@"\n' "$run_cmd" >"$launch/srb-run" && chmod 755 "$launch" "$launch/srb-run" ||
	fault 70 "cannot write $launch/srb-run"
if [ -n "$cmark_cmd" ]; then
	printf '#!/bin/sh\nexec%s "$@"\n' "$cmark_cmd" >"$launch/cmark" && chmod 755 "$launch/cmark" || fault 70 "cannot write $launch/cmark"
	chmod 750 "$run" || fault 70 "cannot open the scratch folder to the group"
fi

candidate=$SRB_CANDIDATE
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE SRB_CANDIDATE_NAME OLDPWD SRB_LAUNCH SRB_LAUNCH_SOCKET LD_LIBRARY_PATH LD_PRELOAD
export CMARK_PREFIX="$prefix" CMARK="$cmark" SRB_RUN="$launch/srb-run"
# Every candidate is a bash script (a C program or a Python script is a
# file it writes, compiles and runs with SRB_RUN); one named as another
# language is still run by bash, with a note on stderr, the same on both
# trees.
case "$candidate" in
*.c | *.py) echo "run-candidate: a candidate is a bash script; ${candidate##*/} is run with bash" >&2 ;;
esac
# The candidate's files are its own (umask 077): a program it launches
# reads only what it opens to the group (chmod g+r an input passed by path,
# g+rx a program it built), so what it keeps to compare against is out of
# the program's reach wherever it writes it (docs/LADDER.md, "The
# candidate's files").
umask 077
# The runner replaces this process (exec), so the role in its argument
# list is gone before the candidate starts: it runs the candidate, removes
# the scratch folder and the wrappers, and reports the candidate's status,
# 64-78 as 1.
exec /bin/bash -c 'run=$1 launch=$2
shift 2
"$@" </dev/null
status=$?
cd / && rm -rf "$run" "$launch"
if [ "$status" -ge 64 ] && [ "$status" -le 78 ]; then status=1; fi
exit "$status"' candidate-runner "$run" "$launch" /bin/bash "$candidate"
