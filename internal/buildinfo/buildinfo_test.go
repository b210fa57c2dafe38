package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// A build without a commit (a test binary is one) is named by a hash of
// its file, the one a user can compute with sha256sum.
func TestWithoutACommitTheBinaryIsNamedByItsHash(t *testing.T) {
	i := Read()
	if i.Commit != "" {
		t.Skipf("this build recorded commit %s", i.Commit)
	}
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])[:12]
	if i.Binary != want {
		t.Fatalf("Binary = %q, want %q (sha256 of %s)", i.Binary, want, p)
	}
	if s := i.String(); !strings.Contains(s, " binary sha256 "+want+" (no VCS commit recorded") {
		t.Fatalf("String() = %q names no hash", s)
	}
}

// A build with a commit names the commit, not a hash.
func TestWithACommitTheCommitIsNamed(t *testing.T) {
	i := Info{Version: "(devel)", Commit: "2ecf00a", Time: "2026-11-25T03:00:00Z", Modified: true, Go: "go1.26.8 linux/amd64"}
	want := "modelfuzz (devel) commit 2ecf00a (2026-11-25T03:00:00Z, with uncommitted changes), go1.26.8 linux/amd64"
	if s := i.String(); s != want {
		t.Fatalf("String() = %q, want %q", s, want)
	}
}
