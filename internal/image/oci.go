package image

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"
)

// BaseStore is the name of the OCI store the debootstrap base is served
// from (SolveOpt.OCIStores), and BaseRef the name its manifest goes by.
const (
	BaseStore = "srb-base"
	BaseRef   = "srb.invalid/base"
)

// ToolchainStore is the name of the OCI store Go toolchains are served
// from, each a one-layer image named ToolchainRef.
const (
	ToolchainStore = "srb-toolchains"
	ToolchainRef   = "srb.invalid/toolchain"
)

// writeOCIBase writes the tree rootfs as a one-layer OCI image into the
// content store folder store (blobs/sha256/<hex>, the layout of
// containerd's local content store) and returns the manifest's digest.
// The layer is a tar of the tree in lexical order with its owners,
// modes and times as they are, gzip-compressed: BuildKit reads it by
// digest, so the base's layer keeps its digest in every image.
func writeOCIBase(rootfs, store string) (string, error) {
	return writeOCIImage(rootfs, "", store)
}

// writeOCIImage writes the tree at dir as a one-layer OCI image into the
// content store folder store, its entries under prefix (e.g.
// "usr/local/go/", whose folders are added as root-owned 0755 entries at
// BaseEpoch), and returns the manifest's digest.
func writeOCIImage(dir, prefix, store string) (string, error) {
	rootfs := dir
	blobs := filepath.Join(store, "blobs", "sha256")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(blobs, "layer-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	gzSum := sha256.New()
	gz, _ := gzip.NewWriterLevel(io.MultiWriter(tmp, gzSum), gzip.DefaultCompression)
	tarSum := sha256.New()
	if err := writeTree(io.MultiWriter(gz, tarSum), rootfs, prefix); err != nil {
		tmp.Close()
		return "", fmt.Errorf("base layer: %w", err)
	}
	if err := gz.Close(); err != nil {
		tmp.Close()
		return "", err
	}
	size, _ := tmp.Seek(0, io.SeekCurrent)
	if err := tmp.Close(); err != nil {
		return "", err
	}
	layer := ocispecs.Descriptor{MediaType: ocispecs.MediaTypeImageLayerGzip, Digest: dgst(gzSum), Size: size}
	if err := os.Rename(tmp.Name(), filepath.Join(blobs, layer.Digest.Encoded())); err != nil {
		return "", err
	}
	cfg := ocispecs.Image{
		Created:  &BaseEpoch,
		Platform: ocispecs.Platform{OS: "linux", Architecture: runtime.GOARCH},
		Config:   ocispecs.ImageConfig{Env: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}},
		RootFS:   ocispecs.RootFS{Type: "layers", DiffIDs: []digestT{dgst(tarSum)}},
	}
	cd, err := writeBlob(blobs, ocispecs.MediaTypeImageConfig, cfg)
	if err != nil {
		return "", err
	}
	man := ocispecs.Manifest{MediaType: ocispecs.MediaTypeImageManifest, Config: cd, Layers: []ocispecs.Descriptor{layer}}
	man.SchemaVersion = 2
	md, err := writeBlob(blobs, ocispecs.MediaTypeImageManifest, man)
	if err != nil {
		return "", err
	}
	return md.Digest.String(), nil
}

func dgst(h hash.Hash) digestT { return digestT("sha256:" + hex.EncodeToString(h.Sum(nil))) }

func writeBlob(blobs, mediaType string, v any) (ocispecs.Descriptor, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return ocispecs.Descriptor{}, err
	}
	sum := sha256.Sum256(b)
	d := ocispecs.Descriptor{MediaType: mediaType, Digest: digestT("sha256:" + hex.EncodeToString(sum[:])), Size: int64(len(b))}
	return d, os.WriteFile(filepath.Join(blobs, d.Digest.Encoded()), b, 0o644)
}

// writeTree writes the tree at root as a tar stream: entries in lexical
// order, owners by number, hard links as links to their first path.
func writeTree(w io.Writer, root, prefix string) error {
	var paths []string
	if err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			paths = append(paths, p)
		}
		return nil
	}); err != nil {
		return err
	}
	sort.Strings(paths)
	tw := tar.NewWriter(w)
	seen := map[[2]uint64]string{}
	if prefix != "" {
		parts := strings.Split(strings.Trim(prefix, "/"), "/")
		for i := range parts {
			hdr := &tar.Header{Name: strings.Join(parts[:i+1], "/") + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: BaseEpoch, Format: tar.FormatPAX}
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
		}
	}
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		hdr.Name = prefix + rel
		if fi.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname = "", ""
		hdr.AccessTime, hdr.ChangeTime = timeZero, timeZero
		hdr.Format = tar.FormatPAX
		st := fi.Sys().(*syscall.Stat_t)
		hdr.Uid, hdr.Gid = int(st.Uid), int(st.Gid)
		if fi.Mode().IsRegular() && st.Nlink > 1 {
			key := [2]uint64{uint64(st.Dev), st.Ino}
			if first, ok := seen[key]; ok {
				hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, prefix+first, 0
			} else {
				seen[key] = rel
			}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if hdr.Typeflag == tar.TypeReg {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
	}
	return tw.Close()
}

type digestT = digest.Digest

var timeZero time.Time
