package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// writeOutFile writes data to path (a file of the --out directory) without
// ever writing through a link: a symbolic link, or anything but a regular
// file, already at path is refused, and the bytes go to a new file of the
// same directory (created exclusively, mode 0644) that is then renamed over
// path. A rename replaces the directory entry itself, so a link planted
// between the check and the rename is replaced, never followed, and a
// reader of path sees the old contents or the new, never a part.
func writeOutFile(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("--out: %s is a symbolic link; refusing to write through it (remove it first)", path)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("--out: %s exists and is not a regular file (%s)", path, fi.Mode().Type())
		}
	} else if !os.IsNotExist(err) {
		return fmt.Errorf("--out: %v", err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*") // O_CREATE|O_EXCL, mode 0600
	if err != nil {
		return fmt.Errorf("--out: %v", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("--out: %v", err)
	}
	return nil
}
