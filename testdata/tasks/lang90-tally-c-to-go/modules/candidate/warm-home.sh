#!/bin/bash
# warm-home.sh: stage 3's warm command for tally (verification.warm_command).
# srb runs it once per stage, before the first round, in the verification
# image with no tree in it, as the candidates' user with an empty HOME;
# what it leaves in HOME starts every tree's HOME for the tree's warm-up
# run. It builds a small program of its own (no submission's code) with
# the flags run-candidate.sh builds a Go submission with, so the standard
# library's packages a port uses are in the Go build cache under HOME and
# no round compiles them cold.
set -euo pipefail
src=$(mktemp -d "$HOME/warm.XXXXXX")
trap 'rm -rf "$src"' EXIT
cat >"$src/go.mod" <<'MOD'
module warm

go 1.22
MOD
cat >"$src/main.go" <<'GO'
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

var (
	_ = bufio.NewReader
	_ = json.Marshal
	_ io.Reader
	_ = filepath.Join
	_ = strings.Fields
	_ = syscall.Getpid
)

func main() { fmt.Fprintln(os.Stdout) }
GO
cd "$src"
GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod GOPROXY=off \
	GOCACHE="${GOCACHE:-$HOME/.cache/go-build}" GOPATH="$src/gopath" go build -trimpath -o "$src/warm" .
