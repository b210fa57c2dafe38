package campaign

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// roundTrip drives the system of adapter (configured by cfg) along the
// path to every target of model within depth, through the inverse of the
// adapter's mapper, maps each execution back and returns how many paths
// the system followed; for each, the mapped actions hold the path's
// actions, in order, with the same parameters (owned: the actions the
// system takes by itself, which it may take at other points).
func roundTrip(t *testing.T, adapter, cfg string, spec models.Spec, depth int, owned map[string]bool) (followed, total int) {
	t.Helper()
	ad, err := LookupAdapter(adapter)
	require.NoError(t, err)
	sys, err := ad.Open(json.RawMessage(cfg), nil)
	require.NoError(t, err)
	defer sys.Close()
	mp, consts, err := sys.Mapper()
	require.NoError(t, err)
	inv := mp.(interface{ Inverse() mapper.Inverse }).Inverse()
	spec.Consts = append(consts, spec.Consts...)
	// One worker: the same shortest path to each target in every run (two
	// workers may find another path of the same length first).
	tr, err := models.Targets(spec, nil, models.SizeOptions{MaxDepth: depth, Workers: 1})
	require.NoError(t, err)
	s, err := sys.New()
	require.NoError(t, err)
	st := s.(schedule.Stepper)
	for _, tg := range tr.Targets {
		path := make([]schedule.ModelAction, len(tg.Path))
		for k, a := range tg.Path {
			path[k] = schedule.ModelAction{Name: a.Name, Params: a.Params}
		}
		path = inv.Prepare(path)
		in, ex, skipped := Drive(st, inv, path)
		total++
		if len(skipped) > 0 {
			continue
		}
		followed++
		acts, err := mp.Map(in, ex)
		require.NoError(t, err)
		if owned == nil {
			// The system takes nothing by itself: the path is the
			// execution's first actions, one for one.
			require.GreaterOrEqual(t, len(acts), len(path))
			for k, a := range path {
				require.True(t, sameAction(acts[k], a), "%016x: action %d is %s, the path's %s", tg.Key, k, actionCall(acts[k]), actionCall(a))
			}
		}
		k := 0
		for _, a := range path {
			if owned[a.Name] {
				continue
			}
			for k < len(acts) && !sameAction(acts[k], a) {
				k++
			}
			require.Less(t, k, len(acts), "%016x: %s is not among the mapped actions %v", tg.Key, actionCall(a), acts)
			k++
		}
	}
	return followed, total
}

func sameAction(a, b schedule.ModelAction) bool {
	return a.Name == b.Name && fmt.Sprint(a.Params) == fmt.Sprint(b.Params)
}

// The inverse round trip on the micro-benchmark: a path the system
// follows maps back to itself, action for action; the paths it cannot
// follow are those the model's unordered channels allow and the FIFO
// inboxes do not.
func TestMicrobenchInverseRoundTrip(t *testing.T) {
	followed, total := roundTrip(t, "microbench", `{"workers":2,"tasks":3}`,
		models.Spec{Model: "microbench.tla"}, 40, nil)
	require.Greater(t, total, 300)
	require.Greater(t, followed, total/10)
	require.Less(t, followed, total)
}

// The same on etcd raft and raft.tla (the library's defaults as the
// command line's, without the spare the model lets receive messages no
// one sends it): the handlers' messages are the system's, with their
// parameters.
func TestEtcdraftInverseRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("searches raft.tla")
	}
	owned := map[string]bool{"BecomeLeader": true, "AdvanceCommit": true, "ApplyConfAt": true, "ApplyConf": true,
		"FollowerProgress": true, "Snapshot": true, "ConfirmRead": true, "StaleAnswer": true}
	followed, total := roundTrip(t, "etcdraft", `{"nodes":3,"snapshot_every":3,"prevote":true,"checkquorum":true,"election_tick":30,"heartbeat_tick":5}`,
		models.Spec{Model: "raft.tla", Config: "raft_standing.cfg"}, 5, owned)
	require.Greater(t, total, 20)
	require.Greater(t, followed, total/2)
}

// With PreVote, three servers that become candidates of one term in a row
// (raft.tla's Timeout(1), Timeout(2), Timeout(3)) each win a pre-vote
// first: the inverse exchanges all their pre-votes before any becomes a
// candidate, so the path is followed and maps back to itself.
func TestEtcdraftInverseCandidatesOfOneTerm(t *testing.T) {
	ad, err := LookupAdapter("etcdraft")
	require.NoError(t, err)
	sys, err := ad.Open(json.RawMessage(`{"nodes":3,"snapshot_every":3,"prevote":true,"checkquorum":true,"election_tick":30,"heartbeat_tick":5}`), nil)
	require.NoError(t, err)
	defer sys.Close()
	mp, _, err := sys.Mapper()
	require.NoError(t, err)
	inv := mp.(interface{ Inverse() mapper.Inverse }).Inverse()
	var path []schedule.ModelAction
	for i := int64(1); i <= 3; i++ {
		path = append(path, schedule.ModelAction{Name: "Timeout", Params: map[string]any{"i": i}})
	}
	prepared := inv.Prepare(path)
	require.Len(t, prepared, 6)
	for k, a := range prepared {
		want := "BecomePreCandidate"
		if k >= 3 {
			want = "Timeout"
		}
		require.Equal(t, want, a.Name)
		require.EqualValues(t, k%3+1, a.Params["i"])
	}
	s, err := sys.New()
	require.NoError(t, err)
	in, ex, skipped := Drive(s.(schedule.Stepper), inv, prepared)
	require.Empty(t, skipped)
	acts, err := mp.Map(in, ex)
	require.NoError(t, err)
	k := 0
	for _, a := range prepared {
		for k < len(acts) && !sameAction(acts[k], a) {
			k++
		}
		require.Less(t, k, len(acts), "%s is not among the mapped actions %v", actionCall(a), acts)
	}
	// The three became candidates of one term, before the drain settles
	// the election.
	var terms []schedule.Arg
	for p := 0; p < 3; p++ {
		k := slices.IndexFunc(ex.Trace, func(e schedule.Event) bool {
			return e.Node == p && e.Kind == schedule.EvRole && e.Type == schedule.RoleCandidate
		})
		require.GreaterOrEqual(t, k, 0, "n%d never became a candidate", p+1)
		terms = append(terms, ex.Trace[k].Args...)
	}
	require.Len(t, terms, 3)
	require.Equal(t, terms[0], terms[1])
	require.Equal(t, terms[0], terms[2])
	// Without the pre-vote phases first, the third cannot win one: the
	// first two are candidates of the term it asks for.
	s2, err := sys.New()
	require.NoError(t, err)
	_, _, skipped = Drive(s2.(schedule.Stepper), inv, path)
	require.NotEmpty(t, skipped)
}

// A restricted search keeps the campaign's VIEW, so that its keys are the
// campaign's coverage; another VIEW is refused in one line.
func TestGenerateRestrictedSearch(t *testing.T) {
	// The library's bootstrap and a spare, as etcdraft's defaults.
	spec := models.Spec{Model: "raft.tla", Config: "raft_standing.cfg",
		Consts: []string{"Servers={1,2,3,4}", "InitVoters={1,2,3}", `Bootstrap="log"`}}
	r, err := restrictedSearch(spec, GenerateOptions{SearchConfig: "../docs/generate/EtcdLibrary.cfg", SearchExtend: "../docs/generate/EtcdLibrary.tla"})
	require.NoError(t, err)
	require.Equal(t, "../docs/generate/EtcdLibrary.tla", r.Extend)
	full, err := models.Targets(spec, nil, models.SizeOptions{MaxDepth: 4, Workers: 1})
	require.NoError(t, err)
	kept, err := models.Targets(r, nil, models.SizeOptions{MaxDepth: 4, Workers: 1})
	require.NoError(t, err)
	require.Less(t, kept.States, full.States)
	in := map[uint64]bool{}
	for _, tg := range full.Targets {
		in[tg.Key] = true
	}
	for _, tg := range kept.Targets {
		require.True(t, in[tg.Key], "%016x: a state of the restricted search the full one lacks", tg.Key)
	}
	_, err = restrictedSearch(spec, GenerateOptions{SearchConfig: "raft.cfg"})
	require.ErrorContains(t, err, "its VIEW is")
}
