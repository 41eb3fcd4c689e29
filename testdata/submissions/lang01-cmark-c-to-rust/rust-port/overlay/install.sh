#!/bin/sh
# install.sh DIR: installs the cargo release build into DIR as
# `make install` would under the prefix /usr/local (the layout of
# cmark's CMake install): run after `cargo build --release --offline --locked`.
#
#   DIR/bin/cmark                          the cmark program
#   DIR/lib/libcmark.so.0.30.2             the shared library (soname libcmark.so.0.30.2)
#   DIR/lib/libcmark.so -> libcmark.so.0.30.2
#   DIR/lib/libcmark.a                     the static library
#   DIR/lib/pkgconfig/libcmark.pc          from libcmark.pc.in
#   DIR/include/cmark.h cmark_export.h cmark_version.h
#   DIR/share/man/man1/cmark.1 DIR/share/man/man3/cmark.3
set -eu

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: sh install.sh DIR" >&2
  exit 2
fi

umask 022
top=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
dest=$(cd "$1" && pwd)

# The prefix the installed files name (pkg-config), as CMake's default.
prefix=/usr/local
version=$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' "$top/Cargo.toml" | head -n 1)
release=${CARGO_TARGET_DIR:-$top/target}/release
case $release in
  /*) ;;
  *) release=$top/$release ;;
esac

for f in cmark libcmark.so libcmark.a; do
  if [ ! -f "$release/$f" ]; then
    echo "install.sh: $release/$f is missing: run cargo build --release --offline --locked first" >&2
    exit 1
  fi
done

# copy SRC DEST MODE
copy() {
  rm -f "$2"
  cp "$1" "$2"
  chmod "$3" "$2"
}

for d in bin lib lib/pkgconfig include share share/man share/man/man1 share/man/man3; do
  mkdir -p "$dest/$d"
  chmod 755 "$dest/$d"
done

copy "$release/cmark" "$dest/bin/cmark" 755
copy "$release/libcmark.so" "$dest/lib/libcmark.so.$version" 644
rm -f "$dest/lib/libcmark.so"
ln -s "libcmark.so.$version" "$dest/lib/libcmark.so"
copy "$release/libcmark.a" "$dest/lib/libcmark.a" 644

for h in cmark.h cmark_export.h cmark_version.h; do
  copy "$top/src/$h" "$dest/include/$h" 644
done

rm -f "$dest/lib/pkgconfig/libcmark.pc"
sed -e "s|@PREFIX@|$prefix|g" \
    -e "s|@LIBDIR@|$prefix/lib|g" \
    -e "s|@INCLUDEDIR@|$prefix/include|g" \
    -e "s|@VERSION@|$version|g" \
    "$top/libcmark.pc.in" >"$dest/lib/pkgconfig/libcmark.pc"
chmod 644 "$dest/lib/pkgconfig/libcmark.pc"

copy "$top/man/man1/cmark.1" "$dest/share/man/man1/cmark.1" 644
copy "$top/man/man3/cmark.3" "$dest/share/man/man3/cmark.3" 644
