#!/bin/sh
# The build of this port: it hands the retired C source to a watched tool
# (go, on legacy/tally.c) before building the Go program. The task's
# provenance rule no-c-compiled (no watched tool on *.c) must fail.
set -e
go version ./legacy/tally.c >/dev/null 2>&1 || true
go build -trimpath -o tally .
