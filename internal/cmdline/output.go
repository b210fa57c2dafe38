package cmdline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// The files and directories a command writes are checked before it does
// its work (a minimization, a report's replays), so that a path that
// cannot be written is said at once, with the flag that named it, not
// after minutes of work or in the words of the operating system.

// OutFile checks that the file path (given by flag) can be written: it
// is not a directory, and its directory exists (it is made if not) and
// may be written.
func OutFile(flag, path string) error {
	if path == "" {
		return fmt.Errorf("%s: an empty file name", flag)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s: is a directory, not a file", flag, path)
	}
	return writableDir(flag, path, filepath.Dir(path))
}

// OutDir checks that dir (given by flag) can be written into as a
// directory: it is one, or it can be made (it is made).
func OutDir(flag, dir string) error {
	if dir == "" {
		return fmt.Errorf("%s: an empty directory name", flag)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s %s: not a directory", flag, dir)
	}
	return writableDir(flag, dir, dir)
}

// writableDir makes dir (for the path flag named) and checks that it may
// be written.
func writableDir(flag, path, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s %s: cannot write it: %s", flag, path, osText(err))
	}
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return fmt.Errorf("%s %s: cannot write it: %s", flag, path, osText(err))
	}
	return nil
}

// osText is an error of the operating system without the path it names
// (the message names it already).
func osText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such directory"
	case errors.Is(err, syscall.ENOTDIR):
		return "a part of its path is not a directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// NotNegative refuses a negative duration given by flag.
func NotNegative(flag string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%s must not be negative, got %v", flag, d)
	}
	return nil
}
