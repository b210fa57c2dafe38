package raftkv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

func ent(index, term uint64, data string) *pb.Entry {
	e := &pb.Entry{Index: new(index), Term: new(term)}
	if data != "" {
		e.Data = []byte(data)
	}
	return e
}

func ents(es ...*pb.Entry) []*pb.Entry { return es }

// show renders entries as "index/term/data" for comparisons.
func show(es []*pb.Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, fmt.Sprintf("%d/%d/%s", e.GetIndex(), e.GetTerm(), e.GetData()))
	}
	return out
}

func hardState(term, vote, commit uint64) *pb.HardState {
	return &pb.HardState{Term: new(term), Vote: new(vote), Commit: new(commit)}
}

func snapshotAt(index, term uint64, data string) *pb.Snapshot {
	return &pb.Snapshot{Data: []byte(data), Metadata: &pb.SnapshotMetadata{
		ConfState: &pb.ConfState{Voters: []uint64{1, 2, 3}}, Index: new(index), Term: new(term),
	}}
}

func openDisk(t *testing.T, dir string) (*Disk, *DiskState) {
	t.Helper()
	d, st, err := OpenDisk(dir, bootstrapSnapshot(3))
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d, st
}

func TestDiskRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d, st := openDisk(t, dir)
	require.True(t, st.Fresh)
	require.Equal(t, uint64(1), st.Boot)
	require.True(t, proto.Equal(bootstrapSnapshot(3), st.Snapshot))
	require.Empty(t, st.Entries)
	require.True(t, raftEmptyHardState(st.HardState))

	require.NoError(t, d.Append(ents(ent(2, 1, ""), ent(3, 1, "a"))))
	require.NoError(t, d.Append(ents(ent(4, 2, "b"))))
	require.NoError(t, d.SetHardState(hardState(2, 1, 3)))
	require.NoError(t, d.Close())

	d, st = openDisk(t, dir)
	require.False(t, st.Fresh)
	require.Equal(t, uint64(2), st.Boot)
	require.Equal(t, []string{"2/1/", "3/1/a", "4/2/b"}, show(st.Entries))
	require.True(t, proto.Equal(hardState(2, 1, 3), st.HardState), st.HardState.String())

	// A snapshot of the own state machine keeps the entries after it.
	snap := snapshotAt(3, 1, `{"k":"a"}`)
	require.NoError(t, d.SaveSnapshot(snap))
	require.NoError(t, d.Append(ents(ent(5, 2, "c"))))
	require.NoError(t, d.Close())

	_, st = openDisk(t, dir)
	require.True(t, proto.Equal(snap, st.Snapshot))
	require.Equal(t, []string{"4/2/b", "5/2/c"}, show(st.Entries))
	require.Equal(t, uint64(3), st.Boot)
}

func TestDiskInstalledSnapshotReplacesLog(t *testing.T) {
	dir := t.TempDir()
	d, _ := openDisk(t, dir)
	require.NoError(t, d.Append(ents(ent(2, 1, ""), ent(3, 1, "a"))))
	// A leader's snapshot at index 9, term 3: the log does not hold its
	// entry, so nothing of the log survives.
	require.NoError(t, d.SaveSnapshot(snapshotAt(9, 3, `{}`)))
	require.NoError(t, d.Append(ents(ent(10, 3, "x"))))
	require.NoError(t, d.Close())

	_, st := openDisk(t, dir)
	require.Equal(t, uint64(9), st.Snapshot.GetMetadata().GetIndex())
	require.Equal(t, []string{"10/3/x"}, show(st.Entries))
}

func TestDiskTornTail(t *testing.T) {
	for _, tc := range []struct {
		name string
		tear func(b []byte) []byte
	}{
		{"cut in the last record", func(b []byte) []byte { return b[:len(b)-3] }},
		{"cut in the last header", func(b []byte) []byte { return b[:len(b)-lastRecordLen(t)+4] }},
		{"garbage after the last record", func(b []byte) []byte { return append(b, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5) }},
		{"corrupt last record", func(b []byte) []byte { b[len(b)-1] ^= 0x55; return b }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d, _ := openDisk(t, dir)
			require.NoError(t, d.Append(ents(ent(2, 1, "a"), ent(3, 1, "b"))))
			require.NoError(t, d.Append(ents(ent(4, 1, "x"))))
			require.NoError(t, d.Close())

			name := filepath.Join(dir, logFile)
			b, err := os.ReadFile(name)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(name, tc.tear(b), 0o644))

			d, st := openDisk(t, dir)
			require.Positive(t, st.TornBytes)
			want := []string{"2/1/a", "3/1/b"}
			if tc.name == "garbage after the last record" {
				want = append(want, "4/1/x")
			}
			require.Equal(t, want, show(st.Entries))

			// The log goes on after the cut.
			last := uint64(len(want)) + 1
			require.NoError(t, d.Append(ents(ent(last+1, 2, "y"))))
			require.NoError(t, d.Close())
			_, st = openDisk(t, dir)
			require.Zero(t, st.TornBytes)
			require.Equal(t, append(want, fmt.Sprintf("%d/2/y", last+1)), show(st.Entries))
		})
	}
}

// lastRecordLen is the length of the record of ent(4, 1, "x").
func lastRecordLen(t *testing.T) int {
	p, err := proto.Marshal(ent(4, 1, "x"))
	require.NoError(t, err)
	return recordHeader + len(p)
}

func TestDiskOverwrite(t *testing.T) {
	dir := t.TempDir()
	d, _ := openDisk(t, dir)
	require.NoError(t, d.Append(ents(ent(2, 1, "a"), ent(3, 1, "b"), ent(4, 1, "c"), ent(5, 1, "d"), ent(6, 1, "e"))))
	// A new leader's entries conflict from index 4 on: 4..6 go.
	require.NoError(t, d.Append(ents(ent(4, 2, "C"), ent(5, 2, "D"))))
	require.Equal(t, []string{"2/1/a", "3/1/b", "4/2/C", "5/2/D"}, show(d.ents))
	require.NoError(t, d.Append(ents(ent(6, 2, "E"))))
	require.NoError(t, d.Close())

	d, st := openDisk(t, dir)
	require.Equal(t, []string{"2/1/a", "3/1/b", "4/2/C", "5/2/D", "6/2/E"}, show(st.Entries))

	require.Error(t, d.Append(ents(ent(9, 2, "gap"))), "a gap in the log")

	// Entries a snapshot covers are skipped.
	require.NoError(t, d.SaveSnapshot(snapshotAt(4, 2, `{}`)))
	require.NoError(t, d.Append(ents(ent(3, 1, "b"), ent(4, 2, "C"), ent(5, 2, "D"), ent(6, 2, "F"))))
	require.Equal(t, []string{"5/2/D", "6/2/F"}, show(d.ents))
	require.NoError(t, d.Close())
	_, st = openDisk(t, dir)
	require.Equal(t, []string{"5/2/D", "6/2/F"}, show(st.Entries))
}

// TestDiskReplayOverwrite: a log file whose records repeat an index reads as
// the later records overwriting the suffix.
func TestDiskReplayOverwrite(t *testing.T) {
	dir := t.TempDir()
	d, _ := openDisk(t, dir)
	require.NoError(t, d.Append(ents(ent(2, 1, "a"), ent(3, 1, "b"), ent(4, 1, "c"))))
	require.NoError(t, d.Close())
	var b []byte
	for _, e := range ents(ent(3, 2, "B"), ent(4, 2, "C")) {
		p, err := proto.Marshal(e)
		require.NoError(t, err)
		b = appendRecord(b, p)
	}
	f, err := os.OpenFile(filepath.Join(dir, logFile), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(b)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	_, st := openDisk(t, dir)
	require.Equal(t, []string{"2/1/a", "3/2/B", "4/2/C"}, show(st.Entries))
}

// TestDiskCrashAfterSnapshotFile: a crash between writing the snapshot file
// and rewriting the log leaves a log that does not start at the snapshot.
func TestDiskCrashAfterSnapshotFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		snap *pb.Snapshot
		want []string
	}{
		{"own snapshot: the log holds its entry", snapshotAt(3, 1, `{}`), []string{"4/2/c"}},
		{"installed snapshot: the log does not", snapshotAt(3, 3, `{}`), []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d, _ := openDisk(t, dir)
			require.NoError(t, d.Append(ents(ent(2, 1, "a"), ent(3, 1, "b"), ent(4, 2, "c"))))
			require.NoError(t, d.Close())
			require.NoError(t, writeFileRecord(dir, snapshotFile, tc.snap))

			d, st := openDisk(t, dir)
			require.Equal(t, tc.want, show(st.Entries))
			require.NoError(t, d.Close())
			_, st = openDisk(t, dir) // repaired for good
			require.Equal(t, tc.want, show(st.Entries))
		})
	}
}

func TestRepairHardState(t *testing.T) {
	for _, tc := range []struct {
		name       string
		hs         *pb.HardState
		snap, last entryID
		want       *pb.HardState
	}{
		{"consistent", hardState(3, 2, 5), entryID{1, 1}, entryID{6, 3}, hardState(3, 2, 5)},
		{"fresh bootstrap keeps term 0", hardState(0, 0, 0), entryID{1, 1}, entryID{1, 1}, hardState(0, 0, 0)},
		{"entries of a later term: term raised, vote gone", hardState(2, 3, 4), entryID{1, 1}, entryID{6, 4}, hardState(4, 0, 4)},
		{"commit beyond the log", hardState(2, 1, 9), entryID{1, 1}, entryID{6, 2}, hardState(2, 1, 6)},
		{"commit below the snapshot", hardState(5, 1, 3), entryID{8, 5}, entryID{8, 5}, hardState(5, 1, 8)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := repairHardState(tc.hs, tc.snap, tc.last)
			require.True(t, proto.Equal(tc.want, got), "got %v", got)
		})
	}
}

func TestParseCluster(t *testing.T) {
	c, err := ParseCluster("1=127.0.0.1:7101, 2=127.0.0.1:7102,3=127.0.0.1:7103")
	require.NoError(t, err)
	require.Equal(t, map[uint64]string{1: "127.0.0.1:7101", 2: "127.0.0.1:7102", 3: "127.0.0.1:7103"}, c)
	for _, bad := range []string{"", "1=a:1,1=b:2", "1=a:1,3=b:2", "0=a:1", "x=a:1", "1"} {
		_, err := ParseCluster(bad)
		require.Error(t, err, bad)
	}
}
