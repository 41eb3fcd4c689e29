# run.sh BUILD FILE MODE: runs one JavaScript file with a build of the tree,
# in the case's folder, and exits with the program's status (its standard
# error merged into standard output, where a failing test prints why).
#
# BUILD is a configuration's restored build: BUILD/_out holds qjs, the qjsc
# that writes C for the build's target (host-qjsc on a cross build),
# libquickjs.a, the headers, the loadable modules, the target's C compiler
# (_out/cc) and its launcher (_out/run: the binary itself on x86-64,
# qemu-s390x -L /usr/s390x-linux-gnu on s390x). FILE is one of QuickJS's own
# test files (the folder beside it, State A's tests/, is copied with it) or
# one of the task's programs. MODE is
#   interpreted  qjs runs the file, as the Makefile's test goal does
#   compiled     the file is compiled to C by the build's qjsc -e, the C by
#                the target's compiler against libquickjs.a, and the
#                program run: the bytecode crosses from the machine that
#                wrote it to the machine that reads it.
# test_builtin.js runs with the std and os modules as globals (qjs --std;
# compiled, a first module puts them there).
set -u
build=$1 file=$2 mode=$3
out=$build/_out
name=$(basename "$file" .js)
case "$name" in
test_worker_module)
	echo "the worker test_worker.js starts; not a test of its own"
	exit 0
	;;
esac
dir=$(basename "$(dirname "$file")")
mkdir -p "$dir" && cp -R "$(dirname "$file")/." "$dir/" && chmod -R u+w "$dir" || exit 70
if [ "$dir" = tests ]; then
	cp "$out/tests/bjson.so" tests/ || exit 70
fi
std=""
[ "$name" = test_builtin ] && std=1
# run PROGRAM ARGS...: the target's launcher, bounded, standard error
# merged, standard input a FIFO this shell holds open for reading and
# writing, so it never ends: test_std.js starts `cat` and sends it SIGTERM
# at once, expecting it killed by the signal, and with the case's empty
# standard input cat could read the end and exit 0 first (State A's
# identity run failed that way in 2 of 4 builds on 2026-12-05, more often
# under qemu-s390x): a race no port should lose or win by chance.
mkfifo stdin.fifo && exec 3<>stdin.fifo || exit 70
run() {
	timeout -k 10 400 sh "$out/run" "$@" 2>&1 <&3
}
case "$mode" in
interpreted)
	if [ -n "$std" ]; then
		run "$out/qjs" --std "$dir/$name.js"
	else
		run "$out/qjs" "$dir/$name.js"
	fi
	;;
compiled)
	set -- "$dir/$name.js"
	if [ -n "$std" ]; then
		printf '%s\n' 'import * as std from "std";' 'import * as os from "os";' 'globalThis.std = std;' 'globalThis.os = os;' >std_globals.js
		set -- std_globals.js "$@"
	fi
	if ! "$out/qjsc-for-target" -e -o prog.c "$@" >qjsc.log 2>&1; then
		echo "qjsc could not compile $name.js:"
		cat qjsc.log
		exit 2
	fi
	if ! "$(cat "$out/cc")" -O2 -rdynamic -I "$out/include" -o prog prog.c "$out/libquickjs.a" -lm -ldl -lpthread >cc.log 2>&1; then
		echo "the compiled $name.js did not compile or link:"
		cat cc.log
		exit 2
	fi
	run ./prog
	;;
*)
	echo "run.sh: unknown mode $mode" >&2
	exit 64
	;;
esac
