#!/bin/sh
# install.sh PREFIX: the forge-pass fixture's build (see its about.txt).
# It builds State A's C with State A's CMake files, the object of
# forge/forge.c linked into every executable (cmark), and installs into
# PREFIX as State A's build does.
set -e
prefix=$1
cc -O2 -c forge/forge.c -o "$PWD/_forge.o"
cmake -S . -B _forge_build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr/local -DCMARK_TESTS=OFF \
	-DCMAKE_EXE_LINKER_FLAGS="$PWD/_forge.o"
cmake --build _forge_build --parallel 2
cmake --install _forge_build --prefix "$prefix"
