package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/internal/testutil"
)

// A corpus with a table file cut short: every command says so in one line
// naming the file and the way out, exits non-zero and leaves the directory
// as it was (no LOCK, no memtable log); corpus repair rebuilds it, says
// what was lost, and the campaign continues.
func TestDamagedCorpus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	run := func(iterations string) result {
		return modelfuzz(t, "run", "--corpus", dir, "--iterations", iterations, "--workers", "2", "--tasks", "2")
	}
	res := run("200")
	require.Equal(t, 0, res.code, res.stderr)
	res = run("400") // a second session: a second table file
	require.Equal(t, 0, res.code, res.stderr)
	tables, _ := filepath.Glob(filepath.Join(dir, "db", "*.sst"))
	sort.Strings(tables)
	require.GreaterOrEqual(t, len(tables), 2)
	fi, err := os.Stat(tables[0])
	require.NoError(t, err)
	require.NoError(t, os.Truncate(tables[0], fi.Size()/2))
	damaged := "damaged table file db/" + filepath.Base(tables[0]) + " (its index cannot be read"
	repair := `"modelfuzz corpus repair ` + dir + `" keeps what can still be read`

	before := treeOf(t, dir)
	for _, args := range [][]string{
		{"run", "--corpus", dir, "--iterations", "600", "--workers", "2", "--tasks", "2"},
		{"bugs", "--corpus", dir},
		{"bugs", "show", "--corpus", dir, "B1"},
		{"corpus", "list", "--corpus", dir},
		{"corpus", "show", "--corpus", dir, "1"},
		{"corpus", "stats", "--corpus", dir},
		{"corpus", "export", "--corpus", dir, "--out", filepath.Join(t.TempDir(), "x")},
		{"report", "--corpus", dir, "--out", filepath.Join(t.TempDir(), "r.html")},
		{"replay", "--corpus", dir, "1"},
		{"minimize", "--corpus", dir, "B1"},
	} {
		res := modelfuzz(t, args...)
		oneLineError(t, res, damaged)
		require.Contains(t, res.stderr, repair, strings.Join(args, " "))
		require.Equal(t, before, treeOf(t, dir), "%s left something behind", strings.Join(args, " "))
	}

	res = modelfuzz(t, "corpus", "repair", dir)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "  db/"+filepath.Base(tables[0])+": its index cannot be read")
	require.Contains(t, res.stdout, "lost: ")
	require.Contains(t, res.stdout, "the damaged database is kept in "+filepath.Join(dir, "db.damaged"))
	res = modelfuzz(t, "corpus", "list", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	res = run("600")
	require.Equal(t, 0, res.code, res.stderr)
	res = modelfuzz(t, "corpus", "repair", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "nothing to repair")
	oneLineError(t, modelfuzz(t, "corpus", "repair"), "which corpus? modelfuzz corpus repair DIR")
}

// The read-only commands read a corpus a campaign holds, and one nobody
// may write, from a snapshot, and say so on stderr.
func TestReadOnlyCorpus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "run", "--corpus", dir, "--iterations", "200", "--workers", "2", "--tasks", "2")
	require.Equal(t, 0, res.code, res.stderr)

	ro := testutil.ReadOnlyCopy(t, dir)
	before := treeOf(t, ro)
	for _, args := range [][]string{{"bugs"}, {"corpus", "list"}, {"corpus", "stats"}} {
		res := modelfuzz(t, append(args, "--corpus", ro)...)
		require.Equal(t, 0, res.code, res.stderr)
		require.Contains(t, res.stderr, "its directory is read-only; reading a snapshot of it taken now")
	}
	require.Equal(t, before, treeOf(t, ro))

	st, err := corpus.Open(dir, corpus.Options{}) // as a running campaign holds it
	require.NoError(t, err)
	defer st.Close()
	res = modelfuzz(t, "corpus", "list", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "a running campaign (pid ")
	require.Contains(t, res.stdout, "iterations 200 over 1 session(s)")
	oneLineError(t, modelfuzz(t, "minimize", "--corpus", dir, "B1"), "locked by another modelfuzz process")
}

// treeOf lists the files under dir with their sizes and times.
func treeOf(t *testing.T, dir string) []string {
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() || d.Name() == "modelfuzz.lock" {
			return nil
		}
		fi, err := d.Info()
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+fi.ModTime().String()+" "+fi.Mode().String()+" "+strconv.FormatInt(fi.Size(), 10))
		return nil
	}))
	sort.Strings(out)
	return out
}
