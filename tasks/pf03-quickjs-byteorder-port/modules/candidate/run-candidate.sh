#!/bin/bash
# run-candidate.sh ROLE: stage 3's candidate runner for pf03. srb runs it
# as verification.candidate_command with the round's role (original or
# submission) as the LAST argument, in the working tree under test, with
# SRB_TARGET (that tree), SRB_TARGET_TOKEN (its salted name), SRB_WORK
# (this tree's scratch: before every run srb restores it to what the
# tree's warm-up run left, so a build cached there is reused and nothing a
# run writes reaches the next) and SRB_CANDIDATE (the candidate file) set.
#
# The candidate is a bash script run in a fresh empty folder. Before it
# starts, this runner builds the tree under test for both targets the way
# stage 2 does (the Makefile's goals, natively or with
# CROSS_PREFIX=s390x-linux-gnu-), once per tree (the warm-up caches both).
# The candidate asks for a target's build by running "$QJS_BUILD" TARGET
# (x86-64 or s390x), which prints a folder holding qjs, qjsc-for-target,
# libquickjs.a, include/, tests/bjson.so, examples/, cc (the target's
# compiler) and run (the target's launcher). The candidate sees neither
# the role nor the tree: the helper, which it may read, is the same for
# both trees, and this script execs a small runner in its place before
# the candidate starts, since its own argument list (/proc/<pid>/cmdline,
# which any process may read) ends with the role.
#
# When srb serves its launcher (SRB_LAUNCH, docs/PROGSEP.md), no code of
# the tree runs as the candidate's user (as that user it could ptrace this
# runner and make every run pass: forge-pass): the build's make runs
# through the launcher, as a user of its own, in a copy of the build
# folder whose files come back (--copy-cwd); the folder the helper prints
# is this run's, written by this runner (never by the build, which could
# have rewritten its own cc or run): its qjs, qjsc-for-target and
# examples' programs are wrappers of the launcher (s390x's under
# qemu-s390x), its run launches a target binary the same way (a program
# the candidate compiled against libquickjs.a is the tree's code too),
# its libquickjs.a, include/, tests/ and examples/*.so are the build's.
# Each launched program runs in a copy of its working folder, whose writes
# (qjsc's C file) come back. The scratch folder, the build and the tests'
# copy are opened to the candidate's group (the launched user's), never
# made writable by it.
#
# Exit status: the candidate's, except that a candidate status in 64-78 is
# reported as 1, so only this runner can say "this tree could not be
# tested": 64 unknown role or target, 66 no tree or no candidate, 70 no
# scratch folder, 71 the tree does not build. A fault is logged on stderr
# as "SRB-INFRA-FAULT: ..." and appended to $SRB_WORK/faults/<token>.<pid>.
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

run=$(mktemp -d "$SRB_WORK/run.XXXXXX") || fault 70 "cannot create a scratch folder under $SRB_WORK"
marker="$run.fault"

# The launcher (SRB_LAUNCH, docs/PROGSEP.md), when srb serves it: every
# program of the tree runs through it, as a user of its own, never as
# the candidate's user, in a copy of its working folder whose writes come
# back (--copy-cwd): the build's make, and the programs the candidate
# runs. Without it (an image built before it) they run as before.
launcher=()
if [ -n "${SRB_LAUNCH:-}" ] && [ -n "${SRB_LAUNCH_SOCKET:-}" ]; then
	umask 022
	launcher=("$SRB_LAUNCH" --socket "$SRB_LAUNCH_SOCKET" --copy-cwd -- /usr/bin/env PATH="$PATH")
	chmod g+x "$SRB_WORK" && chmod 750 "$run" || fault 70 "cannot open the scratch folder to the group"
fi

# A copy of the tree's tests/, made once.
tests="$SRB_WORK/tests/$SRB_TARGET_TOKEN"
if [ ! -d "$tests" ]; then
	mkdir -p "$(dirname "$tests")" && cp -a "$SRB_TARGET/tests" "$tests" || fault 70 "cannot copy the tests"
fi
if [ ${#launcher[@]} -gt 0 ]; then
	chmod g+x "$SRB_WORK/tests" && chmod -R g+rX "$tests" || fault 70 "cannot open the tests to the group"
fi

# build TARGET builds the tree under test for TARGET once, as stage 2 does
# (the Makefile's goals, natively or with CROSS_PREFIX=s390x-linux-gnu-),
# into $SRB_WORK/build/TOKEN/TARGET: qjs, qjsc-for-target, libquickjs.a,
# include/, tests/bjson.so, examples/. Both targets are built before the
# candidate starts, whatever it is, so the warm-up run caches them for
# every run of this tree; the candidate's helper never builds. The make
# goes through the launcher when it is served: the Makefile is the tree's
# code, and as the candidate's user it could leave a process to take the
# candidate over.
build() {
	local target=$1 prefix="" qjsc=qjsc extra=""
	local out="$SRB_WORK/build/$SRB_TARGET_TOKEN/$target"
	[ "$target" = s390x ] && prefix=s390x-linux-gnu- qjsc=host-qjsc extra=host-qjsc
	[ -e "$out/.built" ] && return 0
	rm -rf "$out" && mkdir -p "$out/src" && cp -a "$SRB_TARGET/." "$out/src/" || fault 70 "cannot copy the tree under test"
	# What a make in the tree left goes first, so nothing delivered
	# stands in for a build.
	(cd "$out/src" &&
		rm -rf .obj qjs qjsc host-qjsc libquickjs.a repl.c hello.c test_fib.c examples/hello examples/test_fib examples/*.so tests/*.so) ||
		fault 70 "cannot clear the tree's build products"
	if [ ${#launcher[@]} -gt 0 ]; then
		chmod g+x "$SRB_WORK/build" "$SRB_WORK/build/$SRB_TARGET_TOKEN" "$out" && chmod -R g+rX "$out/src" ||
			fault 70 "cannot open the build folder to the group"
	fi
	(cd "$out/src" && "${launcher[@]}" make CONFIG_LTO= -j"$(nproc)" ${prefix:+CROSS_PREFIX=$prefix} qjs qjsc libquickjs.a tests/bjson.so examples/point.so examples/fib.so examples/hello examples/test_fib $extra) >"$out/build.log" 2>&1 ||
		fault 71 "the $target build failed: $(tail -c 600 "$out/build.log")"
	(cd "$out/src" &&
		mkdir -p "$out/include" "$out/tests" "$out/examples" &&
		cp qjs libquickjs.a "$out/" && cp "$qjsc" "$out/qjsc-for-target" &&
		cp quickjs.h quickjs-libc.h "$out/include/" && cp tests/bjson.so "$out/tests/" &&
		cp examples/point.so examples/fib.so examples/hello examples/test_fib "$out/examples/") >>"$out/build.log" 2>&1 ||
		fault 71 "the $target build left no $target programs: $(tail -c 600 "$out/build.log")"
	rm -rf "$out/src" && touch "$out/.built" || fault 70 "cannot keep the $target build"
}
for t in x86-64 s390x; do
	build "$t"
done

# What the candidate's helper prints for a target: the build's folder
# itself without the launcher (cc and run written there), else a folder
# of this run's (written by this runner, never by the tree's build) whose
# programs are wrappers of the launcher, whose libquickjs.a, include/,
# tests/ and examples/*.so are the build's, and whose run launches a
# target binary: a program of the view by the build's own, anything else
# (a program the candidate compiled) as it is.
view="$run.view"
mkdir "$view" || fault 70 "cannot create $view"
for t in x86-64 s390x; do
	out="$SRB_WORK/build/$SRB_TARGET_TOKEN/$t"
	case "$t" in
	x86-64) cc=gcc emu=() ;;
	s390x) cc=s390x-linux-gnu-gcc emu=(qemu-s390x -L /usr/s390x-linux-gnu) ;;
	esac
	if [ ${#launcher[@]} -eq 0 ]; then
		echo "$cc" >"$out/cc" && printf '%s\n' "exec ${emu[*]:+${emu[*]} }\"\$@\"" >"$out/run" || fault 70 "cannot write $out/run"
		ln -s "$out" "$view/$t" || fault 70 "cannot write $view"
		continue
	fi
	chmod -R g+rX "$out" || fault 70 "cannot open the $t build to the group"
	v="$view/$t"
	wrap() { # wrap FILE PROGRAM...: FILE runs PROGRAM... "$@" through the launcher
		local file=$1
		shift
		printf '#!/bin/sh\nexec' >"$file" && printf ' %q' "${launcher[@]}" "$@" >>"$file" && printf ' "$@"\n' >>"$file" && chmod 755 "$file"
	}
	mkdir -p "$v/examples" &&
		ln -s "$out/libquickjs.a" "$v/libquickjs.a" && ln -s "$out/include" "$v/include" && ln -s "$out/tests" "$v/tests" &&
		ln -s "$out/examples/point.so" "$v/examples/point.so" && ln -s "$out/examples/fib.so" "$v/examples/fib.so" &&
		wrap "$v/qjs" "${emu[@]}" "$out/qjs" &&
		wrap "$v/qjsc-for-target" "$out/qjsc-for-target" &&
		wrap "$v/examples/hello" "${emu[@]}" "$out/examples/hello" &&
		wrap "$v/examples/test_fib" "${emu[@]}" "$out/examples/test_fib" &&
		echo "$cc" >"$v/cc" &&
		{
			printf '# sh run PROGRAM ARGS: runs a %s binary through the launcher\n' "$t"
			printf 'p=$1\nshift\n'
			printf 'case $p in %q/qjs | %q/qjsc-for-target | %q/examples/hello | %q/examples/test_fib) p=%q/${p#%q/} ;; esac\n' "$v" "$v" "$v" "$v" "$out" "$v"
			printf 'exec'
			printf ' %q' "${launcher[@]}" "${emu[@]}"
			printf ' "$p" "$@"\n'
		} >"$v/run" || fault 70 "cannot write the $t view"
done
chmod -R go-w "$view" || fault 70 "cannot write $view"

# The helper the candidate calls, the same for both trees (never the
# role: the candidate may read it): it prints the folder of a target.
helper="$run.qjs-build"
cat >"$helper" <<HELPER || fault 70 "cannot write the build helper"
#!/bin/bash
# qjs-build TARGET: prints the folder holding the build of the tree under
# test for TARGET (x86-64 or s390x), built before this candidate started.
case "\${1:-x86-64}" in
x86-64 | s390x) echo "$view/\${1:-x86-64}" ;;
*) echo "qjs-build: unknown target '\$1' (want x86-64 or s390x)" >&2; echo 64 >"$marker"; exit 64 ;;
esac
HELPER
chmod +x "$helper" || fault 70 "cannot make the build helper executable"

candidate=$SRB_CANDIDATE
token=$SRB_TARGET_TOKEN
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE SRB_CANDIDATE_NAME OLDPWD SRB_LAUNCH SRB_LAUNCH_SOCKET
export QJS_BUILD="$helper" QJS_TESTS="$tests" TZ=UTC LC_ALL=C.UTF-8
# The candidate's files are its own (umask 077): a program it launches
# reads only what it opens to the group (chmod g+r an input passed by path,
# g+rx a program it built), so what it keeps to compare against is out of
# the program's reach wherever it writes it (docs/LADDER.md, "The
# candidate's files").
umask 077
# The runner replaces this process (exec), so the role in its argument
# list is gone before the candidate starts: it runs the candidate, removes
# the scratch folder and the helper, reports a fault the build helper
# recorded (as fault above does), else the candidate's status, 64-78 as 1.
exec /bin/bash -c 'run=$1 helper=$2 marker=$3 token=$4 view=$5
shift 5
"$@" </dev/null
status=$?
cd / && rm -rf "$run" "$helper" "$view"
if [ -s "$marker" ]; then
	read -r code why <"$marker"
	rm -f "$marker"
	why=${why:-the build helper failed}
	echo "SRB-INFRA-FAULT: $why" >&2
	mkdir -p "$SRB_WORK/faults" 2>/dev/null && printf "%s\texit %s\t%s\n" "$token" "$code" "$why" >>"$SRB_WORK/faults/$token.$$"
	exit "$code"
fi
if [ "$status" -ge 64 ] && [ "$status" -le 78 ]; then status=1; fi
exit "$status"' candidate-runner "$run" "$helper" "$marker" "$token" "$view" /bin/bash "$candidate"
