// Package buildinfo says what this binary is: modelfuzz's version and VCS
// commit, the Go version, and the versions of the modules it was built
// with (a system under test's library among them), as the Go toolchain
// recorded them (runtime/debug.ReadBuildInfo).
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// Info is the build's description.
type Info struct {
	Version  string // the main module's version, "(devel)" for a checkout
	Commit   string // the VCS revision, "" when the build did not record one
	Time     string // the commit's time
	Modified bool   // the work tree had changes
	Go       string // runtime.Version(), with the platform
	// Binary names a build that recorded no commit (go run, go build
	// -buildvcs=false, a build outside a checkout): the first 12 hex
	// digits of the sha256 of this program's file, "" when it has a
	// commit or the file could not be read.
	Binary string
}

// Read returns the build's description.
func Read() Info {
	i := Info{Version: "(devel)", Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return i
	}
	if bi.Main.Version != "" {
		i.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	if i.Commit == "" {
		i.Binary = BinaryHash()
	}
	return i
}

var binary struct {
	once sync.Once
	hash string
}

// BinaryHash is the first 12 hex digits of the sha256 of this program's
// file (os.Executable), read once; "" when it cannot be read.
func BinaryHash() string {
	binary.once.Do(func() {
		p, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(p)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return
		}
		binary.hash = hex.EncodeToString(h.Sum(nil))[:12]
	})
	return binary.hash
}

// String is the one line of modelfuzz --version, e.g. "modelfuzz (devel)
// commit 2ecf00a (2026-11-25T03:00:00Z, modified), go1.26.8 linux/amd64";
// without a commit, "modelfuzz (devel) binary sha256 3f2a9c1e0b7d (no VCS
// commit recorded: ...), go1.26.8 linux/amd64".
func (i Info) String() string {
	s := "modelfuzz " + i.Version
	if i.Commit != "" {
		s += " commit " + i.Commit
		switch {
		case i.Time != "" && i.Modified:
			s += " (" + i.Time + ", with uncommitted changes)"
		case i.Time != "":
			s += " (" + i.Time + ")"
		case i.Modified:
			s += " (with uncommitted changes)"
		}
	} else {
		if i.Binary != "" {
			s += " binary sha256 " + i.Binary
		}
		s += " (no VCS commit recorded: make build, or go build -buildvcs=true in a checkout, records it; go run never does)"
	}
	return s + ", " + i.Go
}

// Module is the version of module path in this build, e.g. "v3.7.0", or
// "v3.7.0 replaced by /tmp/raft" when a replace directive swapped it (a
// patched copy); "" when the build does not hold it.
func Module(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path != path {
			continue
		}
		v := d.Version
		if r := d.Replace; r != nil {
			to := r.Path
			if r.Version != "" {
				to += " " + r.Version
			}
			v = fmt.Sprintf("%s replaced by %s", v, to)
		}
		return v
	}
	return ""
}
