package guidance_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Bad known-disagreements files are refused in one line that says where.
func TestParseKnownRefusesBadFiles(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`{`, "k.json: "},
		{`{"spec":"S.tla","sha256":"x","disagreements":[],"extra":1}`, `unknown field "extra"`},
		{`{"sha256":"x","disagreements":[]}`, `no "spec"`},
		{`{"spec":"S.tla","disagreements":[]}`, `no "sha256"`},
		{`{"spec":"S.tla","sha256":"x","disagreements":[{"reason":"r","doc":"d","signatures":[{"kind":"spec-divergence"}]}]}`, `disagreement 1: no "id"`},
		{`{"spec":"S.tla","sha256":"x","disagreements":[{"id":"a","doc":"d","signatures":[{"kind":"spec-divergence"}]}]}`, `(a): give a one-line "reason"`},
		{`{"spec":"S.tla","sha256":"x","disagreements":[{"id":"a","reason":"r","doc":"d"}]}`, `(a): no "signatures"`},
		{`{"spec":"S.tla","sha256":"x","disagreements":[{"id":"a","reason":"r","doc":"d","signatures":[{"kind":"panic"}]}]}`, `signature 1: kind "panic"`},
		{`{"spec":"S.tla","sha256":"x","disagreements":[{"id":"a","reason":"r","doc":"d","signatures":[{"kind":"model-invariant"}]}]}`, `names its invariant`},
		{`{"spec":"S.tla","sha256":"x","disagreements":[{"id":"a","reason":"r","doc":"d","witness":"W","signatures":[{"kind":"spec-divergence"}]}]}`, `no "witnesses" module`},
		{`{"spec":"S.tla","sha256":"x","disagreements":[{"id":"a","reason":"r","doc":"d","signatures":[{"kind":"spec-divergence"}]},{"id":"a","reason":"r","doc":"d","signatures":[{"kind":"spec-divergence"}]}]}`, `id a is used twice`},
	} {
		_, err := guidance.ParseKnown("k.json", []byte(c.text))
		require.ErrorContains(t, err, c.want, c.text)
		require.NotContains(t, err.Error(), "\n")
	}
}

// A failure is a known disagreement when it matches a signature (kind,
// event, condition, fields of its trace line) and the witness holds.
func TestKnownMatch(t *testing.T) {
	f, err := guidance.ParseKnown("k.json", []byte(`{"spec":"S.tla","sha256":"h","witnesses":"W.tla","disagreements":[
		{"id":"vote","reason":"r","doc":"d","signatures":[
			{"kind":"spec-divergence","event":"ReceiveRequestVoteResponse","condition":"m.mvoteGranted = ~logline.event.msg.reject","where":{"event.msg.reject":true}}]},
		{"id":"inv","reason":"r","doc":"d","witness":"Holds","signatures":[{"kind":"model-invariant","invariant":"Inv"}]},
		{"id":"any","reason":"r","doc":"d","signatures":[{"kind":"spec-divergence","where":{"duplicate":[true,"yes"]}}]}]}`))
	require.NoError(t, err)
	set, err := guidance.KnownFor("/x/S.tla", "h", f)
	require.NoError(t, err)
	require.Len(t, set.Entries, 3)
	require.Equal(t, "W.tla", set.Witnesses)

	never := func(string) (bool, error) { t.Fatal("no witness to evaluate"); return false, nil }
	vote := guidance.Disagreement{Kind: schedule.FailureSpecDivergence, Event: "ReceiveRequestVoteResponse MsgVoteResp",
		Condition: "m.mvoteGranted = ~logline.event.msg.reject",
		Line:      map[string]any{"event": map[string]any{"msg": map[string]any{"reject": true}}}}
	k, err := set.Match(vote, never)
	require.NoError(t, err)
	require.Equal(t, "vote", k.ID)

	// The other way round (the library granted what the spec refused) is
	// not that disagreement.
	vote.Line = map[string]any{"event": map[string]any{"msg": map[string]any{"reject": false}}}
	k, err = set.Match(vote, never)
	require.NoError(t, err)
	require.Nil(t, k)

	// Another condition is not it either.
	vote.Line = map[string]any{"event": map[string]any{"msg": map[string]any{"reject": true}}}
	vote.Condition = "m.mterm = logline.event.msg.term"
	k, err = set.Match(vote, never)
	require.NoError(t, err)
	require.Nil(t, k)

	// A list is any of its values.
	dup := guidance.Disagreement{Kind: schedule.FailureSpecDivergence, Event: "ReceiveAppendEntriesRequest MsgApp", Line: map[string]any{"duplicate": "yes"}}
	k, err = set.Match(dup, never)
	require.NoError(t, err)
	require.Equal(t, "any", k.ID)

	// An invariant is known only where its witness holds.
	inv := guidance.Disagreement{Kind: schedule.FailureModelInvariant, Invariant: "Inv"}
	for _, holds := range []bool{true, false} {
		k, err = set.Match(inv, func(def string) (bool, error) {
			require.Equal(t, "Holds", def)
			return holds, nil
		})
		require.NoError(t, err)
		require.Equal(t, holds, k != nil)
	}
}

// Entries written for another spec, or for another version of it, do not
// apply: the set says which files were left out and why.
func TestKnownForOtherSpec(t *testing.T) {
	f, err := guidance.ParseKnown("k.json", []byte(`{"spec":"S.tla","sha256":"h","about":"v1","disagreements":[{"id":"a","reason":"r","doc":"d","signatures":[{"kind":"spec-divergence"}]}]}`))
	require.NoError(t, err)
	set, err := guidance.KnownFor("/x/S.tla", "other", f)
	require.NoError(t, err)
	require.Empty(t, set.Entries)
	require.Len(t, set.Skipped, 1)
	require.Contains(t, set.Skipped[0], "k.json is for S.tla with sha256 h (v1), and this one's is other")
	set, err = guidance.KnownFor("/x/T.tla", "h", f)
	require.NoError(t, err)
	require.Empty(t, set.Entries)
	require.Contains(t, set.Skipped[0], "k.json is for S.tla, not T.tla")

	// One disagreement named twice, in two files, is refused.
	g, err := guidance.ParseKnown("g.json", []byte(`{"spec":"S.tla","sha256":"h","disagreements":[{"id":"a","reason":"r","doc":"d","signatures":[{"kind":"spec-divergence"}]}]}`))
	require.NoError(t, err)
	_, err = guidance.KnownFor("/x/S.tla", "h", f, g)
	require.ErrorContains(t, err, "known disagreement a is in k.json and in g.json")
}

// The hash of a spec covers its file, its cfg and the modules of its
// folder it uses, and nothing else of the folder.
func TestSpecHash(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("T.tla", "---- MODULE T ----\nEXTENDS Base, Naturals\nI == INSTANCE Other\n====\n")
	write("T.cfg", "INIT Init\n")
	write("Base.tla", "---- MODULE Base ----\n====\n")
	write("Other.tla", "---- MODULE Other ----\n====\n")
	write("Unused.tla", "---- MODULE Unused ----\n====\n")
	spec := filepath.Join(dir, "T.tla")
	h1, err := guidance.SpecHash(spec, "")
	require.NoError(t, err)
	write("Unused.tla", "---- MODULE Unused ----\nX == 1\n====\n")
	h2, err := guidance.SpecHash(spec, "")
	require.NoError(t, err)
	require.Equal(t, h1, h2, "a module the spec does not use")
	for _, name := range []string{"Base.tla", "Other.tla", "T.cfg"} {
		write(name, "changed\n")
		h, err := guidance.SpecHash(spec, "")
		require.NoError(t, err)
		require.NotEqual(t, h1, h, name)
		h1 = h
	}
	_, err = guidance.SpecHash(filepath.Join(dir, "Missing.tla"), "")
	require.Error(t, err)
}

// The shipped file parses, and every entry's witness is defined in its
// witnesses module.
func TestShippedKnownParses(t *testing.T) {
	files := models.KnownFiles()
	f, err := guidance.ParseKnown(models.EtcdraftKnown, files[models.EtcdraftKnown])
	require.NoError(t, err)
	require.Equal(t, "Traceetcdraft.tla", f.Spec)
	mod := string(files[f.Witnesses])
	require.NotEmpty(t, mod)
	for _, k := range f.Disagreements {
		if k.Witness != "" {
			require.Contains(t, mod, "\n"+k.Witness+" ==", k.ID)
		}
		require.Regexp(t, `^docs/findings\.md#[a-z0-9-]+$`, k.Doc, k.ID)
	}
}

// A known-disagreements file that cannot be read is said in one line
// naming it: missing, a directory, or without end.
func TestReadKnownRefusesWhatCannotBeRead(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]string{
		filepath.Join(dir, "none.json"): "none.json: no such file",
		dir:                             "is a directory, not a known-disagreements file",
		"/dev/zero":                     "at most 4 MiB (guidance.MaxKnownBytes)",
	} {
		_, err := guidance.ReadKnown(path)
		require.ErrorContains(t, err, want)
		require.NotContains(t, err.Error(), "\n")
	}
}
