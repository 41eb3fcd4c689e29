package archive_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/internal/archive"
)

// Repack pins a tree: the digest it returns is that of the canonical uncompressed tar, so
// DigestTarGz finds it again in the .tar.gz without unpacking.
func ExampleRepack() {
	tree, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(tree)
	os.WriteFile(filepath.Join(tree, "hello.txt"), []byte("hello\n"), 0o644)

	var tgz bytes.Buffer
	digest, err := archive.Repack(&tgz, tree, "hello-1.0")
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _ := archive.DigestTarGz(&tgz)
	fmt.Println(digest)
	fmt.Println(again == digest)
	// Output:
	// 2cec531b4557c35199267706fbbc5ae5deeddf1a42474a0a44d5f9e0dcb30e0d
	// true
}

// A hostile archive is refused with an error that names the entry and matches a sentinel;
// nothing is left behind.
func ExampleExtract() {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "../../etc/passwd", Mode: 0o644})
	tw.Close()

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	err := archive.Extract(&buf, archive.FormatTar, filepath.Join(dir, "out"), archive.Limits{})
	fmt.Println(err)
	fmt.Println(errors.Is(err, archive.ErrUnsafePath))
	entries, _ := os.ReadDir(dir)
	fmt.Println(len(entries))
	// Output:
	// extract: entry "../../etc/passwd": path escapes the root
	// true
	// 0
}
