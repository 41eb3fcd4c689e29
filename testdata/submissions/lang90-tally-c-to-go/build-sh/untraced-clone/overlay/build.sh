#!/bin/sh
# An attack (the break attempt of issue 14): the build's tool log is the
# tracer's record of every process the build starts, followed with
# PTRACE_O_TRACEFORK/VFORK/CLONE. A clone with CLONE_UNTRACED is not
# followed: its child runs go on the retired C source unseen. Then the
# honest build.
perl -e '
my $pid = syscall(56, 0x00800000 | 17, 0, 0, 0, 0); # clone(CLONE_UNTRACED|SIGCHLD)
if ($pid == 0) { exec("go", "version", "./legacy/tally.c"); exit 1 }
waitpid($pid, 0);
' >/dev/null 2>&1 || true
go build -trimpath -o tally .
