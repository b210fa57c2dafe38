package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// ReadOnlyCopy copies dir into a new temporary directory with every
// write permission taken away (as chmod -R a-w does) and returns it; the
// permissions come back at the end of the test, so that it can be
// removed.
func ReadOnlyCopy(t testing.TB, dir string) string {
	t.Helper()
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.CopyFS(ro, os.DirFS(dir)); err != nil {
		t.Fatalf("copying %s: %v", dir, err)
	}
	err := filepath.WalkDir(ro, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(p, fi.Mode().Perm()&^0o222)
	})
	if err != nil {
		t.Fatalf("making %s read-only: %v", ro, err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(ro, func(p string, d fs.DirEntry, err error) error { return os.Chmod(p, 0o755) })
	})
	return ro
}
