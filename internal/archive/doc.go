// Package archive unpacks upstream archives safely and repacks a source tree into srb's
// canonical form, the one a task's State A digest is computed over.
//
// Issue #3 states both halves. Extraction ([ExtractFile], [Extract], [ExtractZip]) goes
// through [os.Root] and refuses absolute paths, "..", links that point outside the root,
// hard links to anything but an earlier regular file, device files and FIFOs, and it stops
// at the [Limits] on bytes (every hard link counted in full), expansion ratio and
// entries, before writing past any of them; [CheckFile] applies the same rules without
// writing. Every refusal is an *[EntryError] that names the
// entry and matches one of the sentinels ([ErrUnsafePath], [ErrLink], [ErrSpecialFile],
// [ErrTooLarge], [ErrTooManyFiles], [ErrDuplicate]) with [errors.Is]. Nothing is written
// outside the destination, and a failed extraction removes what it wrote.
//
// Pinning ([WriteCanonical], [Repack], [DigestTarGz]) turns a tree into a canonical
// uncompressed tar: one top-level folder, entries sorted, fixed mtime, uid/gid 0, modes
// normalised to 0644/0755, tar.FormatPAX. The State A digest is the sha256 of that tar,
// never of compressed bytes, because compressors change their output between versions and
// servers regenerate archives whose contents are identical; neither may move a pin.
// original.tar.gz is that tar through gzip with no name and no timestamp.
package archive
