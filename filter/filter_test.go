package filter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfuzz/modelfuzz/schedule"
)

const reorderTest = `
# Messages of term 1 are held until a node becomes leader of term 2,
# then delivered newest first.
test "term 1 after term 2"
set term1
counter votes
states start, elected
accept elected
on send and type == MsgApp and term == 1 do hold term1
on send and type in {MsgVote, MsgPreVote} and to == 2 do drop, incr votes
on role and type == leader and term >= 2 do reorder term1
on send and type == MsgHeartbeat do delay 2
on crash do restart
scenario start -> elected when role and type == leader and count(votes) >= 1
expect ok
steps 40
`

func send(step, from, to, msg int, typ string, term int64) schedule.Event {
	return schedule.Event{Step: step, Kind: schedule.EvSend, Node: from, Peer: to, Msg: msg, Type: typ,
		Args: []schedule.Arg{schedule.I("term", term)}}
}

func TestMonitorFates(t *testing.T) {
	tst, err := Parse("reorder.filter", reorderTest)
	if err != nil {
		t.Fatal(err)
	}
	if tst.Name != "term 1 after term 2" || tst.Steps != 40 || len(tst.Filters) != 5 || len(tst.Moves) != 1 {
		t.Fatalf("parsed %+v", tst)
	}
	m := tst.NewMonitor(nil)
	trace := []schedule.Event{
		send(0, 0, 1, 1, "MsgApp", 1),
		send(0, 0, 2, 2, "MsgApp", 1),
		send(1, 1, 2, 3, "MsgVote", 2),
		send(1, 1, 0, 4, "MsgVote", 2),
		send(2, 0, 1, 5, "MsgHeartbeat", 1),
		{Step: 3, Kind: "role", Node: 1, Peer: -1, Type: "leader", Args: []schedule.Arg{schedule.I("term", 2)}},
		{Step: 4, Kind: schedule.EvCrash, Node: 2, Peer: -1, Type: schedule.EvCrash},
	}
	for i := range trace[:5] {
		if err := m.Observe(&trace[i]); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Held("term1"); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("held %v, want [1 2]", got)
	}
	want := map[int]Fate{1: Hold, 2: Hold, 3: Drop, 4: Offer, 5: Delay}
	for id, f := range want {
		if got := m.Fate(id, 3); got != f {
			t.Errorf("message %d at step 3: %v, want %v", id, got, f)
		}
	}
	if m.Fate(5, 5) != Offer {
		t.Errorf("the heartbeat sent at step 2 with delay 2 is not offered at step 5")
	}
	if m.Counter("votes") != 1 || m.Satisfied() {
		t.Fatalf("votes %d satisfied %v before the election", m.Counter("votes"), m.Satisfied())
	}
	for i := range trace[5:] {
		if err := m.Observe(&trace[5+i]); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.TakeReleased(); len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Fatalf("released %v, want [2 1] (reorder: newest first)", got)
	}
	if m.Fate(1, 6) != Offer || len(m.Held("term1")) != 0 {
		t.Fatalf("a released message is still held")
	}
	if !m.Satisfied() || m.State() != "elected" {
		t.Fatalf("scenario in %q, satisfied %v", m.State(), m.Satisfied())
	}
	steps := m.TakeSteps()
	if len(steps) != 1 || steps[0].Action != schedule.Restart || steps[0].Process != 2 {
		t.Fatalf("steps %v, want a restart of the crashed node 2", steps)
	}
	if f := m.Fired(); f[0] != 2 || f[1] != 1 || f[2] != 1 || f[3] != 1 || f[4] != 1 {
		t.Fatalf("fired %v", f)
	}
}

// The first filter that matches acts, the later ones are not tried: a
// counter placed first takes every message from the drop after it.
func TestFirstMatchActs(t *testing.T) {
	tst, err := Parse("first.filter", `test "first"
counter n
on send do incr n
on send and type == MsgApp do drop`)
	if err != nil {
		t.Fatal(err)
	}
	m := tst.NewMonitor(nil)
	ev := send(0, 0, 1, 7, "MsgApp", 1)
	if err := m.Observe(&ev); err != nil {
		t.Fatal(err)
	}
	if m.Fate(7, 1) != Offer || m.Counter("n") != 1 {
		t.Fatalf("fate %v counter %d", m.Fate(7, 1), m.Counter("n"))
	}
}

func TestModelPredicates(t *testing.T) {
	tst, err := Parse("model.filter", `test "model"
states start, two
accept two
scenario start -> two when commit and model "Cardinality({i \in Server : state[i] = Leader}) = 1"`)
	if err != nil {
		t.Fatal(err)
	}
	if len(tst.Models) != 1 || !strings.Contains(tst.Models[0].Expr, `\in Server`) {
		t.Fatalf("models %+v", tst.Models)
	}
	ev := schedule.Event{Kind: "commit", Peer: -1}
	calls := 0
	m := tst.NewMonitor(func(i int) (bool, error) { calls++; return calls > 1, nil })
	for k := 0; k < 2; k++ {
		if err := m.Observe(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if !m.Satisfied() || calls != 2 {
		t.Fatalf("satisfied %v after %d calls", m.Satisfied(), calls)
	}
	// Without a model, the predicate is an error at its position, not false.
	err = tst.NewMonitor(nil).Observe(&ev)
	if err == nil || !strings.HasPrefix(err.Error(), "model.filter:4:39: ") {
		t.Fatalf("got %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`test "x"` + "\non send do drop\non recv do hold s", `t.filter:3:17: unknown message set "s" (declare it with set first)`},
		{`test "x"` + "\non recv and type == MsgApp do drop", `t.filter:2:31: drop acts on a message: the condition must require a send event (e.g. on send and type == MsgApp do drop) or a duplicate's copy (on duplicate and ...)`},
		{`test "x"` + "\non send or recv do duplicate", `t.filter:2:20: duplicate acts on a message`},
		{`test "x"` + "\non send do drop, delay 2", `t.filter:2:18: delay: the message already has a fate (drop at 2:12)`},
		{`test "x"` + "\non send and term < MsgApp do drop", `t.filter:2:18: < compares numbers; "MsgApp" is a name`},
		{`test "x"` + "\non send and do drop", `t.filter:2:13: expected a condition, found "do"`},
		{`test "x"` + "\non send do explode", `t.filter:2:12: unknown action "explode"`},
		{`test "x"` + "\non send do crash 16", `t.filter:2:18: process 16 is out of range (0..15)`},
		{`test "x"` + "\nwhen send do drop", `t.filter:2:1: unknown statement "when"`},
		{`test "x"` + "\nstates a, b\nscenario a -> b when role\n", `t.filter:2:1: the scenario has states but no accepting state (add accept STATE)`},
		{`test "x"` + "\nstates a, b\naccept b\n", `t.filter:3:1: no scenario move enters the accepting state "b"`},
		{`test "x"` + "\nstates a\naccept c", `t.filter:3:8: unknown state "c"`},
		{`test "x"` + "\ncounter a\nset a", `t.filter:3:5: "a" is already declared at 2:9`},
		{`test "x"` + "\non send and count(a) > 1 do drop", `t.filter:2:19: unknown counter "a"`},
		{`test "x"` + "\non send and (type == MsgApp do drop", `t.filter:2:29: expected ")", found "do"`},
		{`test "x"` + "\non send and model 3 do drop", `t.filter:2:19: model takes a TLA+ predicate as a string`},
		{`test "x"` + "\non send and type == \"MsgApp do drop\nexpect ok", `t.filter:2:21: string not closed before the end of the line`},
		{`test "x"` + "\non send & recv do drop", `t.filter:2:9: unexpected character '&'`},
		{`test "x"` + "\nexpect ok\nexpect ok", `t.filter:3:1: expect is given twice (first at 2:1)`},
		{`test "x"` + "\nexpect maybe", `t.filter:2:8: expect takes ok or failure ["SIGNATURE"], not "maybe"`},
		{`test "x"` + "\nsteps many", `t.filter:2:7: expected the steps bound (a number), found "many"`},
		{`on send do drop`, `t.filter:1:1: the test has no name (start it with test "NAME")`},
		{`test "x"` + "\non step do drop", `t.filter:2:9: step needs a comparison`},
		{`test "x"` + "\nstates a, b\naccept b\nscenario a -> b when state == c", `t.filter:4:22: state is compared with a declared state, not "c"`},
	} {
		_, err := Parse("t.filter", c.src)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.src, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %q\nwant %q...", c.src, err.Error(), c.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: the error has more than one line: %q", c.src, err)
		}
	}
}

// The repository's filter tests all parse.
func TestRepositoryTestsParse(t *testing.T) {
	files, err := filepath.Glob("../tests/*/*.filter")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("%d filter tests in tests/, want at least 5", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, string(src)); err != nil {
			t.Error(err)
		}
	}
}

func TestRejectAndSteps(t *testing.T) {
	tst, err := Parse("r.filter", `test "r"
states start, elected, two
accept elected
reject two
on role and type == leader do partition, read 1, transfer to 2
scenario start -> elected when role and type == leader
scenario elected -> two when role and type == leader
`)
	if err != nil {
		t.Fatal(err)
	}
	m := tst.NewMonitor(nil)
	ev := schedule.Event{Step: 4, Kind: "role", Node: 1, Peer: -1, Type: "leader"}
	if err := m.Observe(&ev); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Rejected(); r || !m.Satisfied() {
		t.Fatalf("after one leader: rejected %v satisfied %v", r, m.Satisfied())
	}
	steps := m.TakeSteps()
	want := []schedule.Step{{Action: schedule.Partition, Set: 1 << 1}, {Process: 1, Action: schedule.Read},
		{Process: 1, Action: schedule.TransferLeader, To: 2}}
	if len(steps) != len(want) {
		t.Fatalf("steps %v", steps)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Errorf("step %d: %v, want %v", i, steps[i], want[i])
		}
	}
	ev.Step = 9
	if err := m.Observe(&ev); err != nil {
		t.Fatal(err)
	}
	if r, at := m.Rejected(); !r || at != 9 {
		t.Fatalf("rejected %v at %d, want at step 9", r, at)
	}
	if _, err := Parse("r.filter", "test \"r\"\nstates a, b\naccept b\nreject a\n"); err == nil ||
		err.Error() != `r.filter:4:1: the rejecting state "a" is the initial state: every execution would fail` {
		t.Fatalf("got %v", err)
	}
}

// A duplicate's copy is a message of its own: a filter on the duplicate
// event holds the copy and leaves the original to its own fate.
func TestDuplicateCopyHasItsOwnFate(t *testing.T) {
	tst, err := Parse("copy.filter", `test "copy"
set copies
on send and type == MsgReadIndex do duplicate
on duplicate and type == MsgReadIndex and from == 1 and to == 0 do hold copies
on recv and copy == 1 do release copies`)
	if err != nil {
		t.Fatal(err)
	}
	m := tst.NewMonitor(nil)
	orig := send(0, 1, 0, 7, "MsgReadIndex", 0)
	dup := schedule.Event{Step: 1, Kind: schedule.EvDuplicate, Node: 0, Peer: 1, Msg: 9, Type: "MsgReadIndex"}
	for _, ev := range []*schedule.Event{&orig, &dup} {
		if err := m.Observe(ev); err != nil {
			t.Fatal(err)
		}
	}
	if m.Fate(7, 2) != Duplicate || m.Fate(9, 2) != Hold {
		t.Fatalf("original %v, copy %v; want duplicate, hold", m.Fate(7, 2), m.Fate(9, 2))
	}
	m.Duplicated(7)
	if m.Fate(7, 2) != Offer || len(m.Held("copies")) != 1 {
		t.Fatalf("after the duplicate: original %v, held %v", m.Fate(7, 2), m.Held("copies"))
	}
	// A recv of a copy says copy=1 (the etcdraft adapter's arg).
	recv := schedule.Event{Step: 2, Kind: schedule.EvRecv, Node: 0, Peer: 1, Msg: 9, Type: "MsgReadIndex", Args: []schedule.Arg{schedule.I("copy", 1)}}
	if err := m.Observe(&recv); err != nil {
		t.Fatal(err)
	}
	if got := m.TakeReleased(); len(got) != 1 || got[0] != 9 {
		t.Fatalf("released %v, want [9]", got)
	}
	if _, err := Parse("x.filter", "test \"x\"\non recv and copy == 1 do drop"); err == nil || !strings.Contains(err.Error(), "duplicate's copy") {
		t.Fatalf("a message action on a recv: %v", err)
	}
}
