#!/bin/bash
# run-candidate.sh ROLE: stage 3's candidate runner for stylus. srb runs it
# as verification.candidate_command, as uid 65532, with the round's role
# (original or submission) as the LAST argument, in the tree under test,
# with SRB_TARGET (that tree), SRB_TARGET_TOKEN (its salted name), SRB_WORK
# (this tree's scratch: before every run srb restores it to what the
# tree's warm-up run left) and SRB_CANDIDATE (the candidate, a bash
# script) set.
#
# Both trees are prepared the same way, as stage 2 builds them: a copy of
# the tree with its top-level node_modules replaced by the image's five
# runtime dependencies (/usr/local/lib/node_modules). The candidate runs in
# a fresh folder whose node_modules/stylus is a link to that copy, so
# import('stylus') resolves the package through its own package.json on
# either tree, and $STYLUS names its bin/stylus. Nothing here depends on
# the role but the check that it is one: the runner execs a small runner of
# the candidate, so the role in this process's argument list is gone
# before the candidate starts.
#
# The package's code never runs as the candidate's user when srb serves
# its launcher (SRB_LAUNCH, docs/PROGSEP.md): $STYLUS, and `node` and
# `nodejs` first on the candidate's PATH, are wrappers that have the
# launcher run bin/stylus or /usr/bin/node as a user of its own, apart
# from the candidate's processes and files (as the candidate's user, the
# package could ptrace this runner and make every run pass: forge-pass),
# and SRB_RUN runs any other command that way. That user may read what
# this user's group may, so the scratch folder and the prepared package
# are opened to the group, never made writable by it. Each runs in a copy
# of its working folder (the launcher's --copy-cwd), so what it writes
# there (bin/stylus's .css beside its input, --out, source maps) comes back
# into the candidate's folder when it ends, never over a file only the
# candidate may read. Without the launcher (an image built before it) the
# candidate runs them itself, as before, and SRB_RUN runs its command as
# it is.
#
# Exit status: the candidate's, except that a candidate status in 64-78 is
# reported as 1, so only this runner says "this tree could not be tested":
# 64 unknown role, 66 no tree or no candidate, 70 no scratch folder, 71 the
# tree could not be prepared. A fault is logged on stderr as
# "SRB-INFRA-FAULT: ...".
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
	rm -rf "$pkg" && mkdir -p "$pkg/stylus" || fault 70 "cannot create $pkg"
	cp -a "$SRB_TARGET/." "$pkg/stylus/" || fault 70 "cannot copy the tree under test"
	(cd "$pkg/stylus" && rm -rf node_modules && cp -a /usr/local/lib/node_modules node_modules) ||
		fault 71 "cannot put the runtime dependencies beside the tree"
	touch "$pkg/.built" || fault 70 "cannot mark $pkg prepared"
fi

run=$(mktemp -d "$SRB_WORK/run.XXXXXX") || fault 70 "cannot create a scratch folder under $SRB_WORK"
mkdir -p "$run/node_modules" && ln -s "$pkg/stylus" "$run/node_modules/stylus" || fault 70 "cannot link the package into $run"
candidate=$SRB_CANDIDATE
export STYLUS="$run/node_modules/stylus/bin/stylus"
launch="$run.launch"
mkdir "$launch" || fault 70 "cannot create $launch"
if [ -n "${SRB_LAUNCH:-}" ] && [ -n "${SRB_LAUNCH_SOCKET:-}" ]; then
	umask 022
	chmod g+x "$SRB_WORK" "$SRB_WORK/build" && chmod -R g+rX "$pkg" && chmod 750 "$run" || fault 70 "cannot open the scratch folder to the group"
	# The launched program's PATH is the candidate's without the
	# wrappers: bin/stylus's #!/usr/bin/env node finds the image's node.
	{
		for n in node nodejs; do
			printf '#!/bin/sh\nexec %q --socket %q --copy-cwd -- /usr/bin/env PATH=%q /usr/bin/node "$@"\n' "$SRB_LAUNCH" "$SRB_LAUNCH_SOCKET" "$PATH" >"$launch/$n"
		done
		printf '#!/bin/sh\nexec %q --socket %q --copy-cwd -- /usr/bin/env PATH=%q %q "$@"\n' "$SRB_LAUNCH" "$SRB_LAUNCH_SOCKET" "$PATH" "$STYLUS" >"$launch/stylus"
		printf '#!/bin/sh\nexec %q --socket %q --copy-cwd -- /usr/bin/env PATH=%q "$@"\n' "$SRB_LAUNCH" "$SRB_LAUNCH_SOCKET" "$PATH" >"$launch/srb-run"
	} && chmod 755 "$launch" "$launch"/* || fault 70 "cannot write the launcher's wrappers"
	export PATH="$launch:$PATH" STYLUS="$launch/stylus"
else
	printf '#!/bin/sh\nexec "$@"\n' >"$launch/srb-run" && chmod 755 "$launch" "$launch/srb-run" || fault 70 "cannot write $launch/srb-run"
fi
export SRB_RUN="$launch/srb-run"
cd "$run" || fault 70 "cannot enter $run"
unset SRB_TARGET SRB_TARGET_TOKEN SRB_TARGET_ROLE SRB_TARGET_NAME SRB_ORIGINAL SRB_CANDIDATE SRB_CANDIDATE_NAME OLDPWD SRB_LAUNCH SRB_LAUNCH_SOCKET
# The candidate's files are its own (umask 077): a program it launches
# reads only what it opens to the group (chmod g+r an input passed by path,
# g+rx a program it built), so what it keeps to compare against is out of
# the program's reach wherever it writes it (docs/LADDER.md, "The
# candidate's files").
umask 077
exec /bin/bash -c 'run=$1 launch=$2; shift 2; "$@" </dev/null; status=$?; cd / && rm -rf "$run" "$launch"
if [ "$status" -ge 64 ] && [ "$status" -le 78 ]; then status=1; fi; exit "$status"' candidate-runner "$run" "$launch" /bin/bash "$candidate"
