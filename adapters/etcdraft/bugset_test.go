package etcdraft

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLibraryBugSetApplies checks the library bug set (bugs/etcdraft, run
// by scripts/library-bugs.sh): every patch starts with its description,
// applies to the go.etcd.io/raft/v3 this module builds with (a dry run on
// the module cache's copy, which it leaves untouched), and has its
// paragraph in the set's README.
func TestLibraryBugSetApplies(t *testing.T) {
	dir := filepath.Join("..", "..", "bugs", "etcdraft")
	patches, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	if err != nil || len(patches) < 8 {
		t.Fatalf("bugs/etcdraft holds %d patches (want at least 8): %v", len(patches), err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) is not installed (Debian package patch); .ci/run installs it")
	}
	mod := raftModuleDir(t)
	for _, p := range patches {
		name := strings.TrimSuffix(filepath.Base(p), ".patch")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			first, _ := bufio.NewReader(f).ReadString('\n')
			if !strings.HasPrefix(first, "# "+name+": ") {
				t.Errorf("%s: the first line should be \"# %s: <what it is>\", got %q", p, name, first)
			}
			if !strings.Contains(string(readme), "**"+name+"**") {
				t.Errorf("bugs/etcdraft/README.md has no paragraph on **%s**", name)
			}
			out, err := exec.Command("patch", "--dry-run", "--batch", "--forward", "--fuzz=0", "-p1", "-d", mod, "-i", mustAbs(t, p)).CombinedOutput()
			if err != nil {
				t.Errorf("%s does not apply to %s: %v\n%s", p, mod, err, out)
			}
		})
	}
}

// raftModuleDir is the directory of the go.etcd.io/raft/v3 this module
// builds with, in the module cache.
func raftModuleDir(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}} {{with .Replace}}{{.Path}}{{end}}", "go.etcd.io/raft/v3").Output()
	if err != nil {
		t.Skipf("go list -m go.etcd.io/raft/v3: %v", err)
	}
	f := strings.Fields(string(out))
	switch {
	case len(f) < 2:
		t.Skipf("the module's source is not in the module cache (go list -m says %q)", out)
	case len(f) > 2:
		t.Skipf("go.etcd.io/raft/v3 is replaced by %s; the bug set is against the module's own source", f[2])
	case f[0] != "v3.7.0":
		t.Fatalf("the bug set is against go.etcd.io/raft/v3 v3.7.0, go.mod has %s", f[0])
	}
	return f[1]
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
