#!/bin/bash
# run-candidate.sh ROLE: stage 3's candidate runner for build01. srb runs it
# as verification.candidate_command with the round's role (original or
# submission) as the LAST argument, in the working tree under test, with
# SRB_TARGET (that tree), SRB_TARGET_TOKEN (its salted name), SRB_WORK
# (this tree's scratch: before every run srb restores it to what the
# tree's warm-up run left, so a build cached there is reused and nothing a
# run writes reaches the next) and SRB_CANDIDATE (the candidate file) set.
#
# The candidate is a bash script run in a fresh empty folder. It asks for
# the configurations it needs by running "$SODIUM_BUILD" NAME (default or
# minimal), which builds the tree under test once per configuration, the
# way the task declares (a tree with CMakeLists.txt at its top, as
# state_b.detect says: cmake -S . -B _build -DCMAKE_INSTALL_PREFIX=/usr/local
# [-DSODIUM_MINIMAL=ON], cmake --build, DESTDIR=... cmake --install; one
# without, State A: autoreconf -fi, ./configure --prefix=/usr/local
# [--enable-minimal], make, make install DESTDIR=...), and prints the
# installed prefix: a folder holding include/ and lib/ as /usr/local
# would. The candidate sees neither the role nor the tree: the build
# helper, which it may read, chooses by the tree, not by the role, and
# this script execs a small runner in its place before the candidate
# starts, since its own argument list (/proc/<pid>/cmdline, which any
# process may read) ends with the role.
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
# build (the tree's CMakeLists.txt or configure and Makefiles) runs
# through it, as a user of its own, in the tree's copy with --copy-cwd
# (installed into the copy, DESTDIR, which comes back); SRB_RUN runs a
# command that way, and the candidate runs every program it links with
# the installed library through it (the prompt says so). That user may
# read what this user's group may, so the scratch folder and the builds
# are opened to the group, never made writable by it. Without the
# launcher (an image built before it) everything runs as before, SRB_RUN
# running its command as it is.
launcher=()
launcher_q=""
if [ -n "${SRB_LAUNCH:-}" ] && [ -n "${SRB_LAUNCH_SOCKET:-}" ]; then
	umask 022
	launcher=("$SRB_LAUNCH" --socket "$SRB_LAUNCH_SOCKET" --copy-cwd -- /usr/bin/env PATH="$PATH")
	launcher_q=$(printf ' %q' "${launcher[@]}")
	chmod g+x "$SRB_WORK" && chmod 750 "$run" || fault 70 "cannot open the scratch folder to the group"
fi

# The build helper the candidate calls, with this tree baked in (never the
# role: the candidate may read it).
helper="$run.sodium-build"
cat >"$helper" <<HELPER || fault 70 "cannot write the build helper"
#!/bin/bash
# sodium-build CONFIGURATION: builds and installs the tree under test in
# CONFIGURATION (default or minimal) once, and prints the installed prefix.
set -u
launch=($launcher_q)
config="\${1:-default}"
case "\$config" in
default) autotools_opt=""; cmake_opt="" ;;
minimal) autotools_opt="--enable-minimal"; cmake_opt="-DSODIUM_MINIMAL=ON" ;;
*) echo "sodium-build: unknown configuration '\$config' (want default or minimal)" >&2; echo 64 >"$marker"; exit 64 ;;
esac
out="$SRB_WORK/build/$SRB_TARGET_TOKEN/\$config"
exec 9>"$SRB_WORK/build/$SRB_TARGET_TOKEN.lock"
flock 9
if [ ! -e "\$out/.built" ]; then
	rm -rf "\$out" && mkdir -p "\$out/src" || { echo 70 >"$marker"; exit 70; }
	cp -a "$SRB_TARGET/." "\$out/src/" || { echo 70 >"$marker"; exit 70; }
	# Installed inside the tree's copy (the launcher brings back what a
	# program writes in its working folder), then moved beside it.
	chmod -R g+rX "\$out" || { echo 70 >"$marker"; exit 70; }
	if [ -f "\$out/src/CMakeLists.txt" ]; then
		(cd "\$out/src" && "\${launch[@]}" sh -c 'cmake -S . -B _build -DCMAKE_INSTALL_PREFIX=/usr/local "\$@" &&
			cmake --build _build -j 2 && DESTDIR="\$PWD/_srb_dest" cmake --install _build' sh \$cmake_opt &&
			mv _srb_dest "\$out/dest") >"\$out/build.log" 2>&1
	else
		(cd "\$out/src" && "\${launch[@]}" sh -c 'autoreconf -fi && ./configure --prefix=/usr/local "\$@" &&
			make -j2 && make install DESTDIR="\$PWD/_srb_dest"' sh \$autotools_opt &&
			mv _srb_dest "\$out/dest") >"\$out/build.log" 2>&1
	fi
	if [ \$? -ne 0 ] || [ ! -d "\$out/dest/usr/local/lib" ]; then
		echo "71 the \$config build failed: \$(tail -c 600 "\$out/build.log")" >"$marker"
		exit 71
	fi
	rm -rf "\$out/src" && chmod -R g+rX "\$out" && touch "\$out/.built"
fi
echo "\$out/dest/usr/local"
HELPER
chmod +x "$helper" || fault 70 "cannot make the build helper executable"
mkdir -p "$SRB_WORK/build/$SRB_TARGET_TOKEN" || fault 70 "cannot create $SRB_WORK/build"
if [ ${#launcher[@]} -gt 0 ]; then
	chmod g+x "$SRB_WORK/build" "$SRB_WORK/build/$SRB_TARGET_TOKEN" || fault 70 "cannot open the builds to the group"
fi

candidate=$SRB_CANDIDATE
token=$SRB_TARGET_TOKEN
launch="$run.launch"
# SRB_RUN sets LD_LIBRARY_PATH, from SRB_RUN_LIBRARY_PATH, for the command it
# launches alone: set on the candidate's own command it would load the
# tree's libraries into the shell that runs srb-run, as the candidate's
# user (a tree that installs a libc.so.6 would run as the candidate).
mkdir "$launch" && printf '#!/bin/sh\nexec%s /usr/bin/env ${SRB_RUN_LIBRARY_PATH:+"LD_LIBRARY_PATH=$SRB_RUN_LIBRARY_PATH"} "$@"\n' "$launcher_q" >"$launch/srb-run" && chmod 755 "$launch" "$launch/srb-run" ||
	fault 70 "cannot write $launch/srb-run"
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE SRB_CANDIDATE_NAME OLDPWD SRB_LAUNCH SRB_LAUNCH_SOCKET LD_LIBRARY_PATH LD_PRELOAD SRB_RUN_LIBRARY_PATH
export SODIUM_BUILD="$helper" SRB_RUN="$launch/srb-run"
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
