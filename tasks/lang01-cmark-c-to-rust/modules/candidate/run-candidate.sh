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
# (State A) with CMake. Then it runs the candidate in a fresh empty folder
# with CMARK_PREFIX naming the installed tree and CMARK its executable:
#   *.py        python3
#   *.shared.c  compiled against cmark.h and linked against libcmark.so
#   *.c         compiled against cmark.h and linked against libcmark.a
#   anything else  bash
# The candidate sees neither the role nor the tree: this script execs a
# small runner in its place before the candidate starts, since its own
# argument list (/proc/<pid>/cmdline, which any process may read) ends
# with the role.
#
# Exit status: the candidate's (a C candidate that does not compile is 1),
# except that a candidate status in 64-78 is reported as 1, so only this
# runner can say "this tree could not be tested": 64 unknown role, 66 no
# tree or no candidate, 70 no scratch folder, 71 the tree does not build.
# A fault is logged on stderr as "SRB-INFRA-FAULT: ..." and appended to
# $SRB_WORK/faults/<token>.<pid>.
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
	if [ -f "$out/src/Cargo.toml" ]; then
		(cd "$out/src" && CARGO_HOME="$out/cargo-home" CARGO_NET_OFFLINE=true \
			cargo build --release --offline --locked && /bin/sh install.sh "$out/stage") >"$out/build.log" 2>&1 ||
			fault 71 "cargo build or install.sh failed: $(tail -c 600 "$out/build.log")"
	else
		(cd "$out/src" && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr/local -DCMARK_TESTS=OFF &&
			cmake --build build --parallel 2 && cmake --install build --prefix "$out/stage") >"$out/build.log" 2>&1 ||
			fault 71 "the CMake build failed: $(tail -c 600 "$out/build.log")"
	fi
	[ -x "$out/stage/bin/cmark" ] || fault 71 "the build installed no bin/cmark"
	touch "$out/.built" || fault 70 "cannot mark $out built"
fi

run=$(mktemp -d "$SRB_WORK/run.XXXXXX") || fault 70 "cannot create a scratch folder under $SRB_WORK"
candidate=$SRB_CANDIDATE
prefix="$out/stage"
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE
export CMARK_PREFIX="$prefix" CMARK="$prefix/bin/cmark"
# A C candidate is compiled here; one that does not compile is status 1.
case "$candidate" in
*.py) argv=(python3 "$candidate") ;;
*.shared.c)
	cc -I"$prefix/include" -o candidate "$candidate" -L"$prefix/lib" -lcmark || { cd / && rm -rf "$run"; exit 1; }
	export LD_LIBRARY_PATH="$prefix/lib"
	argv=(./candidate)
	;;
*.c)
	cc -DCMARK_STATIC_DEFINE -I"$prefix/include" -o candidate "$candidate" "$prefix/lib/libcmark.a" -lm -lpthread -ldl ||
		{ cd / && rm -rf "$run"; exit 1; }
	argv=(./candidate)
	;;
*) argv=(/bin/bash "$candidate") ;;
esac
# The runner replaces this process (exec), so the role in its argument
# list is gone before the candidate starts: it runs the candidate, removes
# the scratch folder and reports the candidate's status, 64-78 as 1.
exec /bin/bash -c 'run=$1; shift; "$@" </dev/null; status=$?; cd / && rm -rf "$run"
if [ "$status" -ge 64 ] && [ "$status" -le 78 ]; then status=1; fi; exit "$status"' candidate-runner "$run" "${argv[@]}"
