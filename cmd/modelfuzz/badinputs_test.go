package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	encbin "encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBadInputs runs the table of bad inputs and damaged corpora in
// testdata/badinputs.txt: every command given what a user may get wrong
// (flags, files, ids) or a corpus damaged on disk. Each case says the exit
// code and the message it must end with; every case is also held to what
// holds for all of them:
//
//   - it ends within caseDeadline (a hang is a failure, not a wait);
//   - an error is one line on stderr, "modelfuzz: ...", in our words: no
//     Go, JSON or badger wording (forbiddenWording), no stack trace;
//   - nothing stored is lost or altered: the bytes of the corpus the case
//     ran on are the same after it (a corpus that did not exist still does
//     not), and what the read-only commands show of each base corpus is the
//     same after the whole table as before it;
//   - nothing is created in the working directory (no corpus by mistake).
//
// The format of the table is described at its top.
func TestBadInputs(t *testing.T) {
	tab := parseTable(t, filepath.Join("testdata", "badinputs.txt"))
	root := t.TempDir()
	fx := &fixtures{root: root, built: map[string]*fixture{}}
	files := filepath.Join(root, "files")
	require.NoError(t, os.MkdirAll(files, 0o755))
	for name, gen := range tab.files {
		data, err := gen()
		require.NoError(t, err, "file %s", name)
		require.NoError(t, os.WriteFile(filepath.Join(files, name), data, 0o644))
	}
	// What the read-only commands show of each base corpus, before.
	before := map[string]string{}
	for _, base := range tab.bases() {
		before[base] = readDigest(t, fx.base(t, base))
	}
	var mu sync.Mutex
	var timings []caseTiming
	t.Run("cases", func(t *testing.T) {
		for _, sec := range tab.sections {
			t.Run(sec.name(), func(t *testing.T) {
				t.Parallel()
				var dir string
				if !sec.own {
					dir = fx.corpus(t, sec.corpus, filepath.Join(t.TempDir(), "c"))
				}
				for _, c := range sec.cases {
					d := dir
					if sec.own {
						d = fx.corpus(t, sec.corpus, filepath.Join(t.TempDir(), "c"))
					}
					took := runCase(t, c, d, files, sec.own)
					mu.Lock()
					timings = append(timings, caseTiming{c, took})
					mu.Unlock()
				}
			})
		}
	})
	for _, base := range tab.bases() {
		require.Equal(t, before[base], readDigest(t, fx.base(t, base)), "what the read-only commands show of %s changed", base)
	}
	sort.Slice(timings, func(i, j int) bool { return timings[i].took > timings[j].took })
	slow := 0
	for _, tm := range timings {
		if tm.took > 5*time.Second {
			slow++
		}
	}
	t.Logf("%d cases; %d took more than 5s; slowest:", len(timings), slow)
	for _, tm := range timings[:min(5, len(timings))] {
		t.Logf("  %5.2fs  line %d: %s", tm.took.Seconds(), tm.c.line, strings.Join(tm.c.args, " "))
	}
}

type caseTiming struct {
	c    *badCase
	took time.Duration
}

// repoRoot is the repository's root, for the files it holds ($REPO).
var repoRoot, _ = filepath.Abs(filepath.Join("..", ".."))

// caseDeadline turns a hang into a failure; it is generous, for a loaded
// machine: the table's cases take well under a second each.
const caseDeadline = 2 * time.Minute

// forbiddenWording is what a user must never read: Go's, encoding/json's,
// strconv's and badger's words, and stack traces.
var forbiddenWording = regexp.MustCompile(strings.Join([]string{
	"invalid character", "unexpected EOF", "unexpected end of JSON", "During db.vlog.open", "Encryption key mismatch",
	`strconv\.`, `(^|[^.\w])json: `, "goroutine ", `panic\(`, "runtime error", "exceeded max depth", "cannot unmarshal",
	"Go struct field", `unknown option -\d`, "while opening", "Manifest", "manifest has", "[Bb]adger",
	"EOF", "%!", "<nil>", `\[\]byte`, `\*errors\.`, `interface \{\}`, `time: (missing|invalid)`, "no such file or directory$",
}, "|"))

// bareNoSuchFile is an operating system error with nothing of ours around
// it: "open x: no such file or directory" as the whole message.
var bareNoSuchFile = regexp.MustCompile(`^modelfuzz: (open|stat|lstat|read) [^ ]+: no such file or directory$`)

// runCase runs one case on the corpus in dir ("" for a section without one)
// and checks it; it returns how long the command took.
func runCase(t *testing.T, c *badCase, dir, files string, own bool) time.Duration {
	t.Helper()
	scratch := t.TempDir()
	out := filepath.Join(scratch, "out")
	cwd := filepath.Join(scratch, "cwd")
	require.NoError(t, os.Mkdir(cwd, 0o755))
	args := make([]string, len(c.args))
	for i, a := range c.args {
		a = strings.ReplaceAll(a, "$C", dir)
		a = strings.ReplaceAll(a, "$F", files)
		a = strings.ReplaceAll(a, "$T", out)
		a = strings.ReplaceAll(a, "$REPO", repoRoot)
		args[i] = a
	}
	var digest string
	if dir != "" {
		digest = treeDigest(t, dir)
	}
	deadline := caseDeadline
	if d, err := time.ParseDuration(os.Getenv("BADINPUTS_DEADLINE")); err == nil {
		deadline = d // to explore the table quickly
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = cwd
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	where := fmt.Sprintf("testdata/badinputs.txt:%d: %s", c.line, strings.Join(c.args, " "))
	if ctx.Err() != nil {
		t.Errorf("%s: still running after %v (a hang)\nstderr: %.2000s", where, deadline, stderr.String())
		return took
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	so, se := stdout.String(), stderr.String()
	if testing.Verbose() && os.Getenv("BADINPUTS_SHOW") != "" {
		t.Logf("%s\n  exit %d\n  stderr: %s  stdout: %.300s", where, code, se, so)
	}
	if code != c.exit {
		t.Errorf("%s: exit %d, want %d\nstderr: %s\nstdout: %.500s", where, code, c.exit, se, so)
	}
	msg := strings.TrimSpace(se)
	if c.exit != 0 {
		lines := strings.Split(msg, "\n")
		last := lines[len(lines)-1]
		switch {
		case !c.lines && len(lines) != 1:
			t.Errorf("%s: want one line on stderr, got %d:\n%s", where, len(lines), msg)
		case !strings.HasPrefix(last, "modelfuzz: "):
			t.Errorf("%s: the error line does not start with \"modelfuzz: \": %q", where, last)
		case !c.want.MatchString(last):
			t.Errorf("%s: the error line\n  %s\ndoes not match\n  %s", where, last, c.want)
		case bareNoSuchFile.MatchString(last):
			t.Errorf("%s: an operating system error without our words: %q", where, last)
		}
	} else if !c.want.MatchString(so + se) {
		t.Errorf("%s: the output does not match %s:\nstdout: %.2000s\nstderr: %s", where, c.want, so, se)
	}
	for _, out := range []string{so, se} {
		for _, line := range strings.Split(out, "\n") {
			if w := forbiddenWording.FindString(line); w != "" {
				t.Errorf("%s: the output has words that are not ours (%q):\nstderr: %s\nstdout: %.500s", where, w, se, so)
			}
		}
	}
	if dir != "" {
		if own {
			// A command that changes the corpus (repair) keeps what it
			// replaced: the old database, byte for byte.
			if kept := filepath.Join(dir, "db.damaged"); exists(kept) {
				require.Equal(t, digestWithout(digest, "db/"), digestOf(t, kept, "db/"), "%s: the kept database differs from the damaged one", where)
			}
		} else if now := treeDigest(t, dir); now != digest {
			t.Errorf("%s: the corpus changed:\nbefore: %s\nafter:  %s", where, digest, now)
		}
	}
	if entries, _ := os.ReadDir(cwd); len(entries) > 0 {
		t.Errorf("%s: created %s in the working directory", where, entries[0].Name())
	}
	return took
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// treeDigest lists the files under dir (not the lock file, whose content is
// the pid of whoever holds it, nor empty value logs) with a hash of each;
// "absent" when dir does not exist.
func treeDigest(t *testing.T, dir string) string { return digestOf(t, dir, "") }

func digestOf(t *testing.T, dir, prefix string) string {
	t.Helper()
	fi, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return "absent"
	}
	require.NoError(t, err)
	if !fi.IsDir() {
		b, err := os.ReadFile(dir)
		require.NoError(t, err)
		return fmt.Sprintf("file %x", sha256.Sum256(b))
	}
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Name() == "modelfuzz.lock" || rel == "." {
			return nil
		}
		if d.IsDir() {
			out = append(out, prefix+rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(rel, ".vlog") && len(b) == 20 && bytes.Equal(b[:8], make([]byte, 8)) {
			// A value log holding nothing but its header (none is used:
			// values stay in the tables), which badger replaces at every
			// open to write: nothing stored is in it.
			return nil
		}
		h := sha256.Sum256(b)
		out = append(out, prefix+rel+" "+hex.EncodeToString(h[:8]))
		return nil
	}))
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// digestWithout keeps the lines of a digest under prefix.
func digestWithout(digest, prefix string) string {
	var out []string
	for _, l := range strings.Split(digest, "\n") {
		if strings.HasPrefix(l, prefix) && l != prefix {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// readDigest is what the read-only commands show of the corpus in dir.
func readDigest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	exp := filepath.Join(t.TempDir(), "exp")
	for _, args := range [][]string{
		{"corpus", "list", "--corpus", dir},
		{"bugs", "--json", "--corpus", dir},
		{"corpus", "stats", "--json", "--corpus", dir},
		{"corpus", "show", "--corpus", dir, "1"},
		{"corpus", "export", "--corpus", dir, "--out", exp},
	} {
		res := modelfuzz(t, args...)
		require.Equal(t, 0, res.code, "%s: %s", strings.Join(args, " "), res.stderr)
		fmt.Fprintf(&b, "%s\n%s\n", strings.Join(args[:2], " "), strings.ReplaceAll(res.stdout, exp, "EXP"))
	}
	fmt.Fprintln(&b, strings.ReplaceAll(treeDigest(t, exp), exp, ""))
	return b.String()
}

// The table.

type badTable struct {
	files    map[string]func() ([]byte, error)
	sections []*badSection
}

// A section is a corpus (a base corpus, maybe damaged, or none) and the
// cases that run on it, in order; own gives each case its own copy.
type badSection struct {
	line   int
	corpus string
	own    bool
	cases  []*badCase
}

func (s *badSection) name() string {
	n := s.corpus
	if s.own {
		n += "-own"
	}
	return fmt.Sprintf("%s@%d", n, s.line)
}

type badCase struct {
	line  int
	exit  int
	lines bool // several lines on stderr are allowed (log lines before the error)
	args  []string
	want  *regexp.Regexp
}

func (tab *badTable) bases() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range tab.sections {
		base, _, _ := strings.Cut(s.corpus, "+")
		if _, ok := baseCorpora[base]; ok && !seen[base] {
			seen[base] = true
			out = append(out, base)
		}
	}
	sort.Strings(out)
	return out
}

func parseTable(t *testing.T, path string) *badTable {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	tab := &badTable{files: map[string]func() ([]byte, error){}}
	var sec *badSection
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	fail := func(format string, args ...any) {
		t.Fatalf("%s:%d: %s", path, n, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "file":
			name, content, _ := strings.Cut(rest, " ")
			content = strings.TrimSpace(content)
			if _, dup := tab.files[name]; dup {
				fail("file %s defined twice", name)
			}
			gen, err := fileGenerator(content)
			if err != nil {
				fail("file %s: %v", name, err)
			}
			tab.files[name] = gen
		case "corpus":
			fields := strings.Fields(rest)
			if len(fields) == 0 || len(fields) > 2 || (len(fields) == 2 && fields[1] != "own") {
				fail("want: corpus NAME[+DAMAGE,...] [own]")
			}
			if err := checkCorpusSpec(fields[0]); err != nil {
				fail("%v", err)
			}
			sec = &badSection{line: n, corpus: fields[0], own: len(fields) == 2}
			tab.sections = append(tab.sections, sec)
		default:
			if sec == nil {
				fail("a case before the first corpus line")
			}
			c := &badCase{line: n}
			code := word
			if strings.HasSuffix(code, "+") {
				c.lines, code = true, strings.TrimSuffix(code, "+")
			}
			c.exit, err = strconv.Atoi(code)
			if err != nil {
				fail("a case starts with its exit code, not %q", word)
			}
			i := strings.LastIndex(rest, " ~ ")
			if i < 0 {
				fail("a case ends with ~ PATTERN")
			}
			c.want, err = regexp.Compile(strings.TrimSpace(rest[i+3:]))
			if err != nil {
				fail("%v", err)
			}
			c.args, err = splitArgs(rest[:i])
			if err != nil {
				fail("%v", err)
			}
			sec.cases = append(sec.cases, c)
		}
	}
	require.NoError(t, sc.Err())
	return tab
}

// splitArgs splits a command line on spaces; "..." quotes (with Go's
// escapes) keep spaces and empty arguments.
func splitArgs(s string) ([]string, error) {
	var out []string
	s = strings.TrimSpace(s)
	for s != "" {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad quoted argument in %q", s)
			}
			u, _ := strconv.Unquote(q)
			out = append(out, u)
			s = strings.TrimSpace(s[len(q):])
			continue
		}
		w, rest, _ := strings.Cut(s, " ")
		out = append(out, w)
		s = strings.TrimSpace(rest)
	}
	return out, nil
}

// fileGenerator reads a file's definition: a Go-quoted string, or a
// generator: @steps N STEP_JSON (an input of N copies of a step), @pad N
// INPUT_FILE (the file after N bytes of spaces), @nest N (steps nested N
// arrays deep), @random N (random bytes).
func fileGenerator(def string) (func() ([]byte, error), error) {
	if strings.HasPrefix(def, `"`) {
		s, err := strconv.Unquote(def)
		if err != nil {
			return nil, fmt.Errorf("bad quoted content: %v", err)
		}
		return func() ([]byte, error) { return []byte(s), nil }, nil
	}
	f := strings.Fields(def)
	if len(f) < 2 {
		return nil, fmt.Errorf("want a quoted string or @steps, @pad, @random")
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		return nil, fmt.Errorf("%s: want a count, not %q", f[0], f[1])
	}
	switch f[0] {
	case "@steps":
		step := strings.Join(f[2:], " ")
		return func() ([]byte, error) {
			var b bytes.Buffer
			b.WriteString(`{"version":1,"steps":[`)
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(step)
			}
			b.WriteString("]}\n")
			return b.Bytes(), nil
		}, nil
	case "@pad":
		rest := strings.Join(f[2:], " ")
		s, err := strconv.Unquote(rest)
		if err != nil {
			return nil, fmt.Errorf("@pad: want a quoted input after the count")
		}
		return func() ([]byte, error) { return append(bytes.Repeat([]byte(" "), n), s...), nil }, nil
	case "@nest":
		return func() ([]byte, error) {
			return []byte(`{"version":1,"steps":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}"), nil
		}, nil
	case "@random":
		return func() ([]byte, error) {
			r := rand.New(rand.NewPCG(uint64(n), 7))
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			return b, nil
		}, nil
	}
	return nil, fmt.Errorf("unknown generator %s", f[0])
}

// Corpora: the base corpora, built once per run of the table by the
// binary under test, and the damage done to a copy of one.

// baseCorpora are the commands that build each base corpus: several
// sessions, so that its database has several tables and keys with several
// versions (the counters, the bugs' hit counts).
var baseCorpora = map[string][][]string{
	// The micro-benchmark with its seeded bug, found and minimized.
	"mb": {
		{"run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5", "--iterations", "1000", "--stats-every", "100ms"},
		{"run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5", "--iterations", "2000", "--stats-every", "100ms"},
		{"run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5", "--iterations", "3000", "--stats-every", "100ms"},
	},
	// etcd raft with a seeded bug, measured by raft.tla.
	"raft": {
		{"run", "--adapter", "etcdraft", "--model", "raft.tla", "--tlc", "inproc", "--inject", "send-before-persist", "--iterations", "150"},
		{"run", "--adapter", "etcdraft", "--model", "raft.tla", "--tlc", "inproc", "--inject", "send-before-persist", "--iterations", "300"},
	},
}

// The corpora that are not built: none (the directory does not exist),
// empty (an empty directory), other (a directory of other files), file (a
// file).
var plainCorpora = map[string]func(dir string) error{
	"none":  func(string) error { return nil },
	"empty": func(dir string) error { return os.Mkdir(dir, 0o755) },
	"other": func(dir string) error {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("my notes\n"), 0o644)
	},
	"file": func(dir string) error { return os.WriteFile(dir, []byte("not a directory\n"), 0o644) },
}

func checkCorpusSpec(spec string) error {
	base, damages, _ := strings.Cut(spec, "+")
	if _, ok := plainCorpora[base]; ok && damages == "" {
		return nil
	}
	if _, ok := baseCorpora[base]; !ok {
		return fmt.Errorf("unknown corpus %q", base)
	}
	if damages == "" {
		return nil
	}
	for _, d := range strings.Split(damages, ",") {
		if _, ok := damage[d]; !ok {
			return fmt.Errorf("unknown damage %q", d)
		}
	}
	return nil
}

type fixture struct {
	once sync.Once
	dir  string
	err  error
}

type fixtures struct {
	root  string
	mu    sync.Mutex
	built map[string]*fixture
}

// base builds the base corpus name once and returns its directory.
func (fx *fixtures) base(t *testing.T, name string) string {
	t.Helper()
	fx.mu.Lock()
	f := fx.built[name]
	if f == nil {
		f = &fixture{dir: filepath.Join(fx.root, "base", name)}
		fx.built[name] = f
	}
	fx.mu.Unlock()
	f.once.Do(func() {
		for _, args := range baseCorpora[name] {
			cmd := exec.Command(binary, append(args, "--corpus", f.dir, "--log-level", "error")...)
			if out, err := cmd.CombinedOutput(); err != nil {
				f.err = fmt.Errorf("building corpus %s: %s: %v\n%s", name, strings.Join(args, " "), err, out)
				return
			}
		}
	})
	require.NoError(t, f.err)
	return f.dir
}

// corpus makes the corpus of spec at dir: a copy of a base corpus with
// the damage applied, or one of plainCorpora.
func (fx *fixtures) corpus(t *testing.T, spec, dir string) string {
	t.Helper()
	base, damages, _ := strings.Cut(spec, "+")
	if mk, ok := plainCorpora[base]; ok {
		require.NoError(t, mk(dir))
		return dir
	}
	require.NoError(t, os.CopyFS(dir, os.DirFS(fx.base(t, base))))
	if damages != "" {
		for _, d := range strings.Split(damages, ",") {
			require.NoError(t, damage[d](filepath.Join(dir, "db")), "damage %s", d)
		}
	}
	return dir
}

// damage is what can happen to a database directory on disk.
var damage = map[string]func(db string) error{
	"manifest-missing": func(db string) error { return os.Remove(filepath.Join(db, "MANIFEST")) },
	"manifest-empty":   func(db string) error { return os.Truncate(filepath.Join(db, "MANIFEST"), 0) },
	// Shorter than its magic number.
	"manifest-header": func(db string) error { return os.Truncate(filepath.Join(db, "MANIFEST"), 5) },
	// Cut in the middle of its last change set.
	"manifest-truncated": func(db string) error { return cutBy(filepath.Join(db, "MANIFEST"), 3) },
	// Cut after its first change set: a valid MANIFEST that lists fewer
	// tables than the directory holds.
	"manifest-cut": func(db string) error {
		p := filepath.Join(db, "MANIFEST")
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) < 16 {
			return fmt.Errorf("MANIFEST too short")
		}
		return os.Truncate(p, int64(16+encbin.BigEndian.Uint32(b[8:12])))
	},
	"manifest-garbage": func(db string) error { return garble(filepath.Join(db, "MANIFEST"), 8, 16) },
	// 4 KiB of garbage inside the newest table's data.
	"table-garbage": func(db string) error { return garble(newestTable(db), 4096, 4096) },
	// Garbage in the oldest table: older versions of keys newer tables hold.
	"old-table-garbage": func(db string) error { return garble(oldestTable(db), 4096, 4096) },
	"table-truncated":   func(db string) error { return cutBy(newestTable(db), -1) },
	"table-empty":       func(db string) error { return os.Truncate(oldestTable(db), 0) },
	"table-missing":     func(db string) error { return os.Remove(newestTable(db)) },
	"table-tail":        func(db string) error { return garble(newestTable(db), -64, 64) },
	"vlog-garbage":      func(db string) error { return garble(newestVlog(db), 0, 20) },
	"vlog-truncated":    func(db string) error { return os.Truncate(newestVlog(db), 7) },
	"keyregistry-garbage": func(db string) error {
		return garble(filepath.Join(db, "KEYREGISTRY"), 0, 28)
	},
	"keyregistry-truncated": func(db string) error { return os.Truncate(filepath.Join(db, "KEYREGISTRY"), 9) },
	"keyregistry-missing":   func(db string) error { return os.Remove(filepath.Join(db, "KEYREGISTRY")) },
	"discard-garbage":       func(db string) error { return garble(filepath.Join(db, "DISCARD"), 0, 4096) },
	"db-missing":            func(db string) error { return os.RemoveAll(db) },
	"db-file": func(db string) error {
		if err := os.RemoveAll(db); err != nil {
			return err
		}
		return os.WriteFile(db, []byte("x"), 0o644)
	},
	"db-empty": func(db string) error {
		if err := os.RemoveAll(db); err != nil {
			return err
		}
		return os.Mkdir(db, 0o700)
	},
	"marker-missing": func(db string) error { return os.Remove(filepath.Join(filepath.Dir(db), "MODELFUZZ")) },
	"marker-garbage": func(db string) error {
		return os.WriteFile(filepath.Join(filepath.Dir(db), "MODELFUZZ"), []byte("\x00\xff garbage"), 0o644)
	},
	"lock-garbage": func(db string) error {
		return os.WriteFile(filepath.Join(filepath.Dir(db), "modelfuzz.lock"), []byte("\xff\xfe not a pid"), 0o644)
	},
}

func sortedFiles(db, suffix string) []string {
	m, _ := filepath.Glob(filepath.Join(db, "*"+suffix))
	sort.Strings(m)
	return m
}

func newestTable(db string) string {
	m := sortedFiles(db, ".sst")
	if len(m) == 0 {
		return filepath.Join(db, "no-table")
	}
	return m[len(m)-1]
}

func oldestTable(db string) string {
	m := sortedFiles(db, ".sst")
	if len(m) == 0 {
		return filepath.Join(db, "no-table")
	}
	return m[0]
}

func newestVlog(db string) string {
	m := sortedFiles(db, ".vlog")
	if len(m) == 0 {
		return filepath.Join(db, "no-vlog")
	}
	return m[len(m)-1]
}

// garble overwrites n bytes of path at off (from the end when negative)
// with random bytes (the same every time).
func garble(path string, off, n int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if off < 0 {
		off += fi.Size()
	}
	if off < 0 || off+n > fi.Size() {
		return fmt.Errorf("%s: %d bytes, cannot garble %d at %d", path, fi.Size(), n, off)
	}
	r := rand.New(rand.NewPCG(uint64(off), uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	_, err = f.WriteAt(b, off)
	return err
}

// cutBy truncates path by n bytes (n -1: to half its size).
func cutBy(path string, n int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	size := fi.Size() - n
	if n < 0 {
		size = fi.Size() / 2
	}
	return os.Truncate(path, size)
}
