#!/bin/bash
# run-candidate.sh ROLE: stage 3's candidate runner for build03. srb runs it
# as verification.candidate_command with the round's role (original or
# submission) as the LAST argument, in the working tree under test, with
# SRB_TARGET (that tree), SRB_TARGET_TOKEN (its salted name), SRB_WORK
# (this tree's scratch: before every run srb restores it to what the
# tree's warm-up run left, so a build cached there is reused and nothing a
# run writes reaches the next) and SRB_CANDIDATE (the candidate file) set.
#
# The candidate is a bash script run in a fresh empty folder. It asks for
# the configurations it needs by running "$CRYPTO_BUILD" NAME (default,
# no-aesni, no-clmul or no-isa), which builds the tree under test once per
# configuration the way stage 2 does (both trees alike: pip wheel
# --no-build-isolation with CC set to a gcc wrapper refusing the
# configuration's flags, then pip install --target) and prints a folder
# holding dist/ and inst/. Every run builds default first (the warm-up
# caches it). The candidate sees
# neither the role nor the tree: the build helper, which it may read, is
# the same for both trees, and this script execs a small runner in its
# place before the candidate starts, since its own argument list
# (/proc/<pid>/cmdline, which any process may read) ends with the role.
#
# Exit status: the candidate's, except that a candidate status in 64-78 is
# reported as 1, so only this runner can say "this tree could not be
# tested": 64 unknown role or configuration, 66 no tree or no candidate,
# 70 no scratch folder, 71 the tree does not build. A fault is logged on
# stderr as "SRB-INFRA-FAULT: ..." and appended to
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

run=$(mktemp -d "$SRB_WORK/run.XXXXXX") || fault 70 "cannot create a scratch folder under $SRB_WORK"
marker="$run.fault"

# The launcher (SRB_LAUNCH, docs/PROGSEP.md), when srb serves it: the
# tree's code never runs as the candidate's user (as that user it could
# ptrace the candidate runner and make every run pass: forge-pass). The
# build (pip wheel runs the tree's build, its compiled code and its
# Python) runs through it, as a user of its own, in a copy of the build
# folder whose files come back (--copy-cwd); python3, python and
# python3.11 first on the candidate's PATH are wrappers that run
# /usr/bin/python3 that way (a script that imports Crypto runs the tree's
# code), and SRB_RUN runs any other command that way. That user may read
# what this user's group may, so the scratch folder, the builds and the
# vectors are opened to the group, never made writable by it. Without the
# launcher (an image built before it) everything runs as before.
launcher=()
launcher_q=""
if [ -n "${SRB_LAUNCH:-}" ] && [ -n "${SRB_LAUNCH_SOCKET:-}" ]; then
	umask 022
	launcher=("$SRB_LAUNCH" --socket "$SRB_LAUNCH_SOCKET" --copy-cwd -- /usr/bin/env PATH="$PATH")
	launcher_q=$(printf ' %q' "${launcher[@]}")
	chmod g+x "$SRB_WORK" && chmod 750 "$run" || fault 70 "cannot open the scratch folder to the group"
fi

# State A's test vectors, copied once from the tree's test_vectors/ (the
# task requires the submission to keep them byte for byte).
vectors="$SRB_WORK/vectors/$SRB_TARGET_TOKEN"
if [ ! -d "$vectors/pycryptodome_test_vectors" ]; then
	mkdir -p "$vectors" && cp -a "$SRB_TARGET/test_vectors/pycryptodome_test_vectors" "$vectors/" ||
		fault 70 "cannot copy the test vectors"
fi
if [ ${#launcher[@]} -gt 0 ]; then
	chmod g+x "$SRB_WORK/vectors" && chmod -R g+rX "$vectors" || fault 70 "cannot open the test vectors to the group"
fi

# The build helper the candidate calls, with this tree baked in (never the
# role: the candidate may read it).
helper="$run.crypto-build"
cat >"$helper" <<HELPER || fault 70 "cannot write the build helper"
#!/bin/bash
# crypto-build CONFIGURATION: builds the tree under test's wheel in
# CONFIGURATION once, installs it, and prints the folder holding dist/ and inst/.
set -u
launch=($launcher_q)
config="\${1:-default}"
case "\$config" in
default) refuse="" ;;
no-aesni) refuse="-maes" ;;
no-clmul) refuse="-mpclmul -mssse3" ;;
no-isa) refuse="-maes -mpclmul -mssse3" ;;
*) echo "crypto-build: unknown configuration '\$config' (want default, no-aesni, no-clmul or no-isa)" >&2; echo 64 >"$marker"; exit 64 ;;
esac
out="$SRB_WORK/build/$SRB_TARGET_TOKEN/\$config"
exec 9>"$SRB_WORK/build/$SRB_TARGET_TOKEN.lock"
flock 9
if [ ! -e "\$out/.built" ]; then
	rm -rf "\$out" && mkdir -p "\$out/src" "\$out/cc" || { echo 70 >"$marker"; exit 70; }
	cp -a "$SRB_TARGET/." "\$out/src/" || { echo 70 >"$marker"; exit 70; }
	{
		echo '#!/bin/sh'
		echo 'for a in "\$@"; do'
		echo '  case "\$a" in'
		for f in \$refuse; do printf '  %s) echo "cc: error: unrecognized command-line option %s" >&2; exit 1 ;;\n' "\$f" "\$f"; done
		echo '  esac'
		echo 'done'
		echo 'exec gcc "\$@"'
	} >"\$out/cc/cc" && chmod 755 "\$out/cc/cc"
	# The wheel and its installation are made inside the tree's copy (the
	# launcher brings back what a program writes in its working folder),
	# then moved beside it.
	(cd "\$out/src" && rm -rf _srb_dist _srb_inst && chmod -R g+rX . && chmod g+x "\$out" "\$out/cc" &&
		CC="\$out/cc/cc" "\${launch[@]}" sh -c 'python3 -m pip wheel --no-deps --no-build-isolation --no-index --no-cache-dir -w _srb_dist . &&
			python3 -m pip install --no-deps --no-index --no-compile --no-cache-dir --target _srb_inst _srb_dist/*.whl' &&
		mv _srb_dist "\$out/dist" && mv _srb_inst "\$out/inst") >"\$out/build.log" 2>&1
	if [ \$? -ne 0 ] || [ ! -d "\$out/inst/Crypto" ]; then
		echo "71 the \$config build failed: \$(tail -c 600 "\$out/build.log")" >"$marker"
		exit 71
	fi
	rm -rf "\$out/src" && chmod -R g+rX "\$out" && touch "\$out/.built"
fi
echo "\$out"
HELPER
chmod +x "$helper" || fault 70 "cannot make the build helper executable"
mkdir -p "$SRB_WORK/build/$SRB_TARGET_TOKEN" || fault 70 "cannot create $SRB_WORK/build"
if [ ${#launcher[@]} -gt 0 ]; then
	chmod g+x "$SRB_WORK/build" "$SRB_WORK/build/$SRB_TARGET_TOKEN" || fault 70 "cannot open the builds to the group"
fi

# The default configuration is built whatever the candidate is, so the
# warm-up run caches it for every run of this tree.
if ! "$helper" default >/dev/null; then
	why=$(cut -d' ' -f2- "$marker" 2>/dev/null)
	rm -f "$marker"
	fault 71 "${why:-the default build failed}"
fi

candidate=$SRB_CANDIDATE
token=$SRB_TARGET_TOKEN
launch="$run.launch"
mkdir "$launch" || fault 70 "cannot create $launch"
if [ ${#launcher[@]} -gt 0 ]; then
	{
		for n in python3 python python3.11; do
			printf '#!/bin/sh\nexec%s /usr/bin/python3 "$@"\n' "$launcher_q" >"$launch/$n"
		done
		printf '#!/bin/sh\nexec%s "$@"\n' "$launcher_q" >"$launch/srb-run"
	} && chmod 755 "$launch" "$launch"/* || fault 70 "cannot write the launcher's wrappers"
	PATH="$launch:$PATH"
else
	printf '#!/bin/sh\nexec "$@"\n' >"$launch/srb-run" && chmod 755 "$launch" "$launch/srb-run" || fault 70 "cannot write $launch/srb-run"
fi
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE SRB_CANDIDATE_NAME OLDPWD SRB_LAUNCH SRB_LAUNCH_SOCKET
export CRYPTO_BUILD="$helper" CRYPTO_VECTORS="$vectors" SRB_RUN="$launch/srb-run" PATH
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
exec /bin/bash -c 'run=$1 helper=$2 marker=$3 token=$4 launch=$5
shift 5
"$@" </dev/null
status=$?
cd / && rm -rf "$run" "$helper" "$launch"
if [ -s "$marker" ]; then
	read -r code why <"$marker"
	rm -f "$marker"
	why=${why:-the build helper failed}
	echo "SRB-INFRA-FAULT: $why" >&2
	mkdir -p "$SRB_WORK/faults" 2>/dev/null && printf "%s\texit %s\t%s\n" "$token" "$code" "$why" >>"$SRB_WORK/faults/$token.$$"
	exit "$code"
fi
if [ "$status" -ge 64 ] && [ "$status" -le 78 ]; then status=1; fi
exit "$status"' candidate-runner "$run" "$helper" "$marker" "$token" "$launch" /bin/bash "$candidate"
