package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Format is an archive format detected from content (magic bytes), never from a name.
type Format string

// The formats srb unpacks. A compressed format is assumed to hold a tar.
const (
	FormatTar    Format = "tar"
	FormatTarGz  Format = "tar.gz"
	FormatTarXz  Format = "tar.xz"
	FormatTarBz2 Format = "tar.bz2"
	FormatZip    Format = "zip"
)

// DetectLen is how many leading bytes [DetectBytes] needs to recognise every format (a
// tar header block).
const DetectLen = 512

// Detect reads up to [DetectLen] bytes at offset 0 of r and returns the format, or an
// error matching [ErrFormat].
func Detect(r io.ReaderAt) (Format, error) {
	head := make([]byte, DetectLen)
	n, err := r.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("detect: %w", err)
	}
	return DetectBytes(head[:n])
}

// DetectBytes returns the format of an archive whose first bytes are head (pass
// [DetectLen] bytes, or the whole archive if shorter), for callers that peek at a stream.
// It returns an error matching [ErrFormat] when no format matches.
func DetectBytes(head []byte) (Format, error) {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return FormatTarGz, nil
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return FormatTarXz, nil
	case bytes.HasPrefix(head, []byte("BZh")):
		return FormatTarBz2, nil
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return FormatZip, nil
	case isTarHeader(head):
		return FormatTar, nil
	}
	return "", fmt.Errorf("detect: %w", ErrFormat)
}

// isTarHeader reports whether head starts with a ustar/GNU header, or with a V7 header
// whose checksum is right.
func isTarHeader(head []byte) bool {
	if len(head) < 512 {
		return false
	}
	if bytes.HasPrefix(head[257:], []byte("ustar")) {
		return true
	}
	// V7: no magic; check the header checksum (field 148..156, counted as spaces).
	var sum int64
	for i, c := range head[:512] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int64(c)
	}
	field := bytes.TrimRight(bytes.TrimLeft(head[148:156], " \x00"), " \x00")
	if len(field) == 0 {
		return false
	}
	var want int64
	for _, c := range field {
		if c < '0' || c > '7' {
			return false
		}
		want = want*8 + int64(c-'0')
	}
	return want == sum && sum != 8*' '
}
