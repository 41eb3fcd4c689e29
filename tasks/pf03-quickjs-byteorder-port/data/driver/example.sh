# example.sh BUILD NAME: runs one of the executables the Makefile builds
# from a JavaScript program compiled to C (examples/hello, examples/test_fib),
# with the target's launcher, standard error merged into standard output.
set -u
out=$1/_out
timeout -k 10 300 sh "$out/run" "$out/examples/$2" 2>&1
