#!/bin/bash
# run-candidate.sh ROLE: stage 3's candidate runner for pf03. srb runs it
# as verification.candidate_command with the round's role (original or
# submission) as the LAST argument, in the working tree under test, with
# SRB_TARGET (that tree), SRB_TARGET_TOKEN (its salted name), SRB_WORK
# (this tree's scratch: before every run srb restores it to what the
# tree's warm-up run left, so a build cached there is reused and nothing a
# run writes reaches the next) and SRB_CANDIDATE (the candidate file) set.
#
# The candidate is a bash script run in a fresh empty folder. It asks for
# a target's build by running "$QJS_BUILD" TARGET (x86-64 or s390x), which
# builds the tree under test once per target the way stage 2 does (the
# Makefile's goals, natively or with CROSS_PREFIX=s390x-linux-gnu-) and
# prints a folder holding qjs, qjsc-for-target, libquickjs.a, include/,
# tests/bjson.so, examples/, cc (the target's compiler) and run (the
# target's launcher). Every run builds both targets first (the warm-up
# caches them). The candidate sees neither the role nor the tree: the
# build helper, which it may read, is the same for both trees, and this
# script execs a small runner in its place before the candidate starts,
# since its own argument list (/proc/<pid>/cmdline, which any process may
# read) ends with the role.
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

# A copy of the tree's tests/, made once.
tests="$SRB_WORK/tests/$SRB_TARGET_TOKEN"
if [ ! -d "$tests" ]; then
	mkdir -p "$(dirname "$tests")" && cp -a "$SRB_TARGET/tests" "$tests" || fault 70 "cannot copy the tests"
fi

# The build helper the candidate calls, with this tree baked in (never the
# role: the candidate may read it). It builds as stage 2 does.
helper="$run.qjs-build"
cat >"$helper" <<HELPER || fault 70 "cannot write the build helper"
#!/bin/bash
# qjs-build TARGET: builds the tree under test for TARGET (x86-64 or s390x)
# once and prints the folder holding what the build made.
set -u
target="\${1:-x86-64}"
case "\$target" in
x86-64) prefix="" cc=gcc qjsc=qjsc run='exec "\$@"' extra="" ;;
s390x) prefix=s390x-linux-gnu- cc=s390x-linux-gnu-gcc qjsc=host-qjsc run='exec qemu-s390x -L /usr/s390x-linux-gnu "\$@"' extra=host-qjsc ;;
*) echo "qjs-build: unknown target '\$target' (want x86-64 or s390x)" >&2; echo 64 >"$marker"; exit 64 ;;
esac
out="$SRB_WORK/build/$SRB_TARGET_TOKEN/\$target"
mkdir -p "$SRB_WORK/build"
exec 9>"$SRB_WORK/build/$SRB_TARGET_TOKEN.lock"
flock 9
if [ ! -e "\$out/.built" ]; then
	rm -rf "\$out" && mkdir -p "\$out/src" || { echo 70 >"$marker"; exit 70; }
	cp -a "$SRB_TARGET/." "\$out/src/" || { echo 70 >"$marker"; exit 70; }
	(cd "\$out/src" &&
		rm -rf .obj qjs qjsc host-qjsc libquickjs.a repl.c hello.c test_fib.c examples/hello examples/test_fib examples/*.so tests/*.so &&
		make CONFIG_LTO= -j"\$(nproc)" \${prefix:+CROSS_PREFIX=\$prefix} qjs qjsc libquickjs.a tests/bjson.so examples/point.so examples/fib.so examples/hello examples/test_fib \$extra &&
		mkdir -p "\$out/include" "\$out/tests" "\$out/examples" &&
		cp qjs libquickjs.a "\$out/" && cp "\$qjsc" "\$out/qjsc-for-target" &&
		cp quickjs.h quickjs-libc.h "\$out/include/" && cp tests/bjson.so "\$out/tests/" &&
		cp examples/point.so examples/fib.so examples/hello examples/test_fib "\$out/examples/") >"\$out/build.log" 2>&1
	if [ \$? -ne 0 ]; then
		echo "71 the \$target build failed: \$(tail -c 600 "\$out/build.log")" >"$marker"
		exit 71
	fi
	echo "\$cc" >"\$out/cc"
	printf '%s\n' "\$run" >"\$out/run"
	rm -rf "\$out/src" && touch "\$out/.built"
fi
echo "\$out"
HELPER
chmod +x "$helper" || fault 70 "cannot make the build helper executable"

# Both targets are built whatever the candidate is, so the warm-up run
# caches them for every run of this tree.
for t in x86-64 s390x; do
	if ! "$helper" "$t" >/dev/null; then
		why=$(cut -d' ' -f2- "$marker" 2>/dev/null)
		rm -f "$marker"
		fault 71 "${why:-the $t build failed}"
	fi
done

candidate=$SRB_CANDIDATE
token=$SRB_TARGET_TOKEN
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE OLDPWD
export QJS_BUILD="$helper" QJS_TESTS="$tests" TZ=UTC LC_ALL=C.UTF-8
# The runner replaces this process (exec), so the role in its argument
# list is gone before the candidate starts: it runs the candidate, removes
# the scratch folder and the helper, reports a fault the build helper
# recorded (as fault above does), else the candidate's status, 64-78 as 1.
exec /bin/bash -c 'run=$1 helper=$2 marker=$3 token=$4
shift 4
"$@" </dev/null
status=$?
cd / && rm -rf "$run" "$helper"
if [ -s "$marker" ]; then
	read -r code why <"$marker"
	rm -f "$marker"
	why=${why:-the build helper failed}
	echo "SRB-INFRA-FAULT: $why" >&2
	mkdir -p "$SRB_WORK/faults" 2>/dev/null && printf "%s\texit %s\t%s\n" "$token" "$code" "$why" >>"$SRB_WORK/faults/$token.$$"
	exit "$code"
fi
if [ "$status" -ge 64 ] && [ "$status" -le 78 ]; then status=1; fi
exit "$status"' candidate-runner "$run" "$helper" "$marker" "$token" /bin/bash "$candidate"
