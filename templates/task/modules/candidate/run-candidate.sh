#!/bin/bash
# The candidate runner (verification.candidate_command): stage 3 runs it
# as uid 65532 with a candidate test's path in $SRB_CANDIDATE, the tree
# under test in $SRB_TARGET, a scratch folder in $SRB_WORK, and the tree's
# role as its last argument. Every process may read its argument list, so
# it execs what runs the candidate instead of forking it (docs/LADDER.md,
# "The runner's part"). Exit 64-78 says the tree could not be tested (a
# build failure, say); anything else is the candidate's own result.
set -u
cd "$SRB_TARGET" || exit 70
# Build the tree under test here when the candidates need it built (the old or the new build
# system, chosen by the tree's files, never by the role); exit 71 when it
# does not build.
cd "$SRB_WORK" || exit 70
# What the candidate writes is its own (umask 077): a program of the tree
# that srb's launcher runs as another user reads only what the candidate
# opens to its group (docs/AUTHORING.md, "Writing the candidate runner").
unset SRB_CANDIDATE_NAME
umask 077
exec /bin/bash "$SRB_CANDIDATE"
