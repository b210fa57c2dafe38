package etcdraft

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	if err != nil || len(patches) < 15 {
		t.Fatalf("bugs/etcdraft holds %d patches (want at least 15): %v", len(patches), err)
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

// TestLibraryBugSetPinned checks how the bug set's re-introduced upstream
// fixes are tied to upstream: a patch whose first line says it "Reverts
// go.etcd.io/raft" a commit names that commit in full on an "# upstream:"
// line, and on its "# pinning test: PKG REGEX" lines a test of
// go.etcd.io/raft/v3 v3.7.0's own test files (or says "none: why").
// scripts/bugset-pinning.sh runs those tests without and with the patch.
func TestLibraryBugSetPinned(t *testing.T) {
	dir := filepath.Join("..", "..", "bugs", "etcdraft")
	patches, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	if err != nil {
		t.Fatal(err)
	}
	reverts := regexp.MustCompile(`^# [a-z0-9-]+: Reverts go\.etcd\.io/raft ([0-9a-f]{7,40}) `)
	upstreamLine := regexp.MustCompile(`^# upstream: https://github\.com/etcd-io/raft/commit/([0-9a-f]{40})$`)
	mod := raftModuleDir(t)
	pinned := 0
	for _, p := range patches {
		name := strings.TrimSuffix(filepath.Base(p), ".patch")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			m := reverts.FindStringSubmatch(lines[0])
			if m == nil {
				return // not a re-introduced upstream fix
			}
			var commit string
			var pins []string
			for _, l := range lines {
				if !strings.HasPrefix(l, "# ") {
					break
				}
				if u := upstreamLine.FindStringSubmatch(l); u != nil {
					commit = u[1]
				}
				if pin, ok := strings.CutPrefix(l, "# pinning test: "); ok {
					pins = append(pins, pin)
				}
			}
			if !strings.HasPrefix(commit, m[1]) {
				t.Errorf("%s reverts %s but has no line \"# upstream: https://github.com/etcd-io/raft/commit/%s...\" naming it in full", p, m[1], m[1])
			}
			if len(pins) == 0 {
				t.Errorf("%s has no \"# pinning test: PKG REGEX\" line (or \"# pinning test: none: why\")", p)
			}
			for _, pin := range pins {
				if why, ok := strings.CutPrefix(pin, "none: "); ok {
					if strings.TrimSpace(why) == "" {
						t.Errorf("%s: \"# pinning test: none:\" says why not", p)
					}
					continue
				}
				f := strings.Fields(pin)
				if len(f) != 2 {
					t.Errorf("%s: pinning test %q: want \"PKG REGEX\"", p, pin)
					continue
				}
				top, _, _ := strings.Cut(f[1], "/")
				re, err := regexp.Compile(top)
				if err != nil {
					t.Errorf("%s: pinning test %q: %v", p, pin, err)
					continue
				}
				if tests := moduleTests(t, filepath.Join(mod, f[0]), re); len(tests) == 0 {
					t.Errorf("%s: pinning test %q matches no test of %s", p, pin, filepath.Join(mod, f[0]))
				}
				pinned++
			}
		})
	}
	if pinned < 7 {
		t.Errorf("%d pinning tests in the bug set, want at least 7", pinned)
	}
}

// moduleTests lists the test functions of the _test.go files in dir whose
// names match re.
func moduleTests(t *testing.T, dir string, re *regexp.Regexp) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func (Test\w*)\(t \*testing\.T\)`)
	var names []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			if re.MatchString(m[1]) {
				names = append(names, m[1])
			}
		}
	}
	return names
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
