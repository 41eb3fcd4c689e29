#!/usr/bin/env bash
# engines.sh installs and starts the engines srb builds and runs images with,
# on Debian 12, and leaves them on known sockets. It is idempotent: a second
# run finds everything installed and running and returns in about a second.
#
#   runc, debootstrap, docker.io   from Debian (apt-get)
#   dockerd                        unix:///var/run/docker.sock
#   buildkitd, buildctl            built from the Go module proxy at $BUILDKIT_VERSION
#                                  into $SRB_ENGINES/bin; socket unix:///run/buildkit/buildkitd.sock
#   registry                       github.com/distribution/distribution/v3 at $REGISTRY_VERSION,
#                                  on http://127.0.0.1:5000 (for srb build --push)
#
# State lives in fixed folders so a rerun is fast, but nothing depends on
# them existing:
#
#   $SRB_ENGINES/bin        buildkitd, buildctl
#   $SRB_ENGINES/buildkit   buildkitd's --root (its cache)
#   $SRB_ENGINES/registry   the registry's storage and config
#   $SRB_ENGINES/log        dockerd.log, buildkitd.log, build-buildkit.log
#
# SRB_ENGINES, SRB_BUILDKIT_SOCK and SRB_REGISTRY_ADDR move the state folder,
# buildkitd's socket and the registry's address, so a second, cold set of
# engines can run beside the usual one (dockerd is shared: one per machine).
#
# Usage: scripts/engines.sh [install|start|status|env]   (default: install and start)
# `env` prints the variables that address the engines, for eval.
set -euo pipefail

BUILDKIT_VERSION=${BUILDKIT_VERSION:-v0.26.3}
REGISTRY_VERSION=${REGISTRY_VERSION:-v3.1.2}
REGISTRY_ADDR=${SRB_REGISTRY_ADDR:-127.0.0.1:5000}
SRB_ENGINES=${SRB_ENGINES:-/var/lib/srb-engines}
BIN=$SRB_ENGINES/bin
LOG=$SRB_ENGINES/log
DOCKER_SOCK=/var/run/docker.sock
BUILDKIT_SOCK=${SRB_BUILDKIT_SOCK:-/run/buildkit/buildkitd.sock}

say() { echo "engines: $*" >&2; }
die() { say "$*"; exit 1; }

need_root() {
	[ "$(id -u)" = 0 ] || die "must run as root (it installs packages and starts daemons)"
}

install_debian() {
	local missing=()
	command -v runc >/dev/null || missing+=(runc)
	command -v debootstrap >/dev/null || missing+=(debootstrap)
	command -v dockerd >/dev/null || missing+=(docker.io)
	[ -x /usr/bin/git ] || command -v git >/dev/null || missing+=(git)
	if [ ${#missing[@]} -eq 0 ]; then
		return
	fi
	say "apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >"$LOG/apt.log" 2>&1 || { tail -20 "$LOG/apt.log" >&2; die "apt-get update failed (log: $LOG/apt.log)"; }
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$LOG/apt.log" 2>&1 ||
		{ tail -20 "$LOG/apt.log" >&2; die "apt-get install failed (log: $LOG/apt.log)"; }
}

buildkit_built() {
	[ -x "$BIN/buildkitd" ] && [ -x "$BIN/buildctl" ] &&
		[ "$(cat "$BIN/.buildkit-version" 2>/dev/null)" = "$BUILDKIT_VERSION stamped" ]
}

install_buildkit() {
	if buildkit_built; then
		return
	fi
	say "building buildkitd and buildctl $BUILDKIT_VERSION from the module proxy (about 2 min cold)"
	local src=$SRB_ENGINES/src/buildkit-$BUILDKIT_VERSION
	mkdir -p "$src" "$BIN"
	(
		cd "$src"
		# A throwaway module: `go install pkg@version` is refused for
		# buildkit (its go.mod has exclude directives).
		[ -f go.mod ] || go mod init srb.invalid/engines >/dev/null 2>&1
		GOFLAGS=-mod=mod go get "github.com/moby/buildkit@$BUILDKIT_VERSION"
		GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$BIN/" \
			-ldflags "-X github.com/moby/buildkit/version.Version=$BUILDKIT_VERSION -X github.com/moby/buildkit/version.Package=github.com/moby/buildkit" \
			github.com/moby/buildkit/cmd/buildkitd github.com/moby/buildkit/cmd/buildctl
	) >"$LOG/build-buildkit.log" 2>&1 || { tail -30 "$LOG/build-buildkit.log" >&2; die "building buildkit failed (log: $LOG/build-buildkit.log)"; }
	echo "$BUILDKIT_VERSION stamped" >"$BIN/.buildkit-version"
}

registry_built() {
	[ -x "$BIN/registry" ] && [ "$(cat "$BIN/.registry-version" 2>/dev/null)" = "$REGISTRY_VERSION" ]
}

install_registry() {
	if registry_built; then
		return
	fi
	say "building the registry $REGISTRY_VERSION from the module proxy"
	local src=$SRB_ENGINES/src/registry-$REGISTRY_VERSION
	mkdir -p "$src" "$BIN"
	(
		cd "$src"
		[ -f go.mod ] || go mod init srb.invalid/registry >/dev/null 2>&1
		GOFLAGS=-mod=mod go get "github.com/distribution/distribution/v3@$REGISTRY_VERSION"
		GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$BIN/registry" github.com/distribution/distribution/v3/cmd/registry
	) >"$LOG/build-registry.log" 2>&1 || { tail -30 "$LOG/build-registry.log" >&2; die "building the registry failed (log: $LOG/build-registry.log)"; }
	echo "$REGISTRY_VERSION" >"$BIN/.registry-version"
}

registry_up() {
	curl -fsS "http://$REGISTRY_ADDR/v2/" >/dev/null 2>&1
}

start_registry() {
	if registry_up; then
		return
	fi
	say "starting the registry on http://$REGISTRY_ADDR"
	mkdir -p "$SRB_ENGINES/registry/data"
	printf 'version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: %s\n' \
		"$SRB_ENGINES/registry/data" "$REGISTRY_ADDR" >"$SRB_ENGINES/registry/config.yml"
	setsid nohup "$BIN/registry" serve "$SRB_ENGINES/registry/config.yml" >>"$LOG/registry.log" 2>&1 </dev/null &
	echo $! >"$SRB_ENGINES/registry.pid"
	wait_for registry registry_up "$LOG/registry.log"
}

docker_up() {
	DOCKER_HOST=unix://$DOCKER_SOCK docker version --format '{{.Server.Version}}' >/dev/null 2>&1 ||
		curl -fsS --unix-socket "$DOCKER_SOCK" http://localhost/_ping >/dev/null 2>&1
}

buildkit_up() {
	"$BIN/buildctl" --addr "unix://$BUILDKIT_SOCK" debug workers >/dev/null 2>&1
}

wait_for() {
	local what=$1 check=$2 log=$3
	for _ in $(seq 1 120); do
		if $check; then
			return 0
		fi
		sleep 0.5
	done
	tail -30 "$log" >&2
	die "$what did not come up in 60 s (log: $log)"
}

start_dockerd() {
	if docker_up; then
		return
	fi
	say "starting dockerd on unix://$DOCKER_SOCK"
	setsid nohup dockerd --host "unix://$DOCKER_SOCK" >>"$LOG/dockerd.log" 2>&1 </dev/null &
	echo $! >"$SRB_ENGINES/dockerd.pid"
	wait_for dockerd docker_up "$LOG/dockerd.log"
}

# close_otel makes buildkitd's OpenTelemetry socket (beside its own, where
# start_buildkitd puts it, made 0666 by buildkitd) root's alone: with
# --host, graded programs run on this machine as uids of their own and must
# reach no engine of the grader's. A buildkitd started elsewhere with the
# default path has it in /run/buildkit.
close_otel() {
	local otel found=0
	for otel in "$(dirname "$BUILDKIT_SOCK")/otel-grpc.sock" /run/buildkit/otel-grpc.sock; do
		if [ -S "$otel" ]; then chmod 0600 "$otel" && found=1; fi
	done
	if [ "$found" = 0 ]; then say "warning: no buildkitd OpenTelemetry socket found to close"; fi
}

start_buildkitd() {
	if buildkit_up; then
		# A buildkitd this script started from an older build is replaced.
		local running
		running=$("$BIN/buildctl" --addr "unix://$BUILDKIT_SOCK" debug info 2>/dev/null | awk '/^BuildKit:/ {print $3}')
		if [ "$running" = "$BUILDKIT_VERSION" ] || [ ! -f "$SRB_ENGINES/buildkitd.pid" ]; then
			close_otel
			return
		fi
		say "restarting buildkitd ($running, want $BUILDKIT_VERSION)"
		kill "$(cat "$SRB_ENGINES/buildkitd.pid")" 2>/dev/null || true
		for _ in $(seq 1 40); do buildkit_up || break; sleep 0.25; done
	fi
	say "starting buildkitd on unix://$BUILDKIT_SOCK"
	mkdir -p "$(dirname "$BUILDKIT_SOCK")" "$SRB_ENGINES/buildkit"
	setsid nohup "$BIN/buildkitd" --root "$SRB_ENGINES/buildkit" --oci-worker=true \
		--containerd-worker=false --addr "unix://$BUILDKIT_SOCK" \
		--otel-socket-path "$(dirname "$BUILDKIT_SOCK")/otel-grpc.sock" >>"$LOG/buildkitd.log" 2>&1 </dev/null &
	echo $! >"$SRB_ENGINES/buildkitd.pid"
	wait_for buildkitd buildkit_up "$LOG/buildkitd.log"
	close_otel
}

print_env() {
	echo "export BUILDKIT_HOST=unix://$BUILDKIT_SOCK"
	echo "export DOCKER_HOST=unix://$DOCKER_SOCK"
	echo "export SRB_REGISTRY=$REGISTRY_ADDR"
	echo "export PATH=$BIN:\$PATH"
}

status() {
	local rc=0
	if docker_up; then say "dockerd: up on unix://$DOCKER_SOCK"; else say "dockerd: down"; rc=1; fi
	if buildkit_up; then say "buildkitd: up on unix://$BUILDKIT_SOCK"; else say "buildkitd: down"; rc=1; fi
	if registry_up; then say "registry: up on http://$REGISTRY_ADDR"; else say "registry: down"; rc=1; fi
	return $rc
}

main() {
	local cmd=${1:-all}
	case $cmd in
	env) print_env; return ;;
	status) status; return ;;
	esac
	need_root
	mkdir -p "$BIN" "$LOG"
	case $cmd in
	install) install_debian; install_buildkit; install_registry ;;
	start) start_dockerd; start_buildkitd; start_registry ;;
	all) install_debian; install_buildkit; install_registry; start_dockerd; start_buildkitd; start_registry; status ;;
	*) die "unknown command $cmd (want install, start, status or env)" ;;
	esac
}

main "$@"
