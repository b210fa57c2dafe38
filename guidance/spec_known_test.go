//go:build with_tla

package guidance_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// knownCase is a reproducer of a known disagreement: an input, the cluster
// it runs on, and the way the disagreement shows in it (what the spec
// reports without the known disagreements).
type knownCase struct {
	file   string // in testdata
	known  string // the entry of models/known/etcdraft.json
	config func(*etcdraft.Config)
	// signature is the failure without the known disagreements, step the
	// step it happens in.
	signature string
	step      int
}

var knownCases = []knownCase{
	{file: "etcdraft-vote-gap.json", known: "vote-refused-under-known-leader",
		config:    func(c *etcdraft.Config) { c.API, c.AsyncStorageWrites = etcdraft.APIRawNode, "off" },
		signature: "spec-divergence: ReceiveAppendEntriesRequest MsgApp at Traceetcdraft.tla:194 (votedFor[i] = logline.event.state.vote)", step: 6},
	{file: "known/vote-refused-mixed.json", known: "vote-refused-under-known-leader",
		signature: "spec-divergence: ReceiveAppendEntriesRequest MsgApp at Traceetcdraft.tla:194 (votedFor[i] = logline.event.state.vote)", step: 5},
	{file: "known/vote-refused-response.json", known: "vote-refused-under-known-leader", config: func(c *etcdraft.Config) { c.SnapshotEvery = 3 },
		signature: "spec-divergence: ReceiveRequestVoteResponse MsgVoteResp at Traceetcdraft.tla:188 (m.mvoteGranted = ~logline.event.msg.reject)", step: 10},
	{file: "known/msgapp-commit-paused-flow.json", known: "msgapp-commit-beyond-entries",
		signature: `spec-divergence: SendAppendEntriesRequest MsgApp at Traceetcdraft.tla:158 (m.msubtype /= "snapshot" => m.mcommitIndex = logline.event.msg.commit)`, step: 28},
	{file: "known/msgapp-commit-size-limit.json", known: "msgapp-commit-beyond-entries", config: func(c *etcdraft.Config) { c.MaxSizePerMsg = 1 },
		signature: `spec-divergence: SendAppendEntriesRequest MsgApp at Traceetcdraft.tla:158 (m.msubtype /= "snapshot" => m.mcommitIndex = logline.event.msg.commit)`, step: 12},
	{file: "etcdraft-leader-completeness.json", known: "leader-completeness-stale-leader",
		signature: "model-invariant: LeaderCompletenessInv", step: 12},
	// The same flaw where a stale leader's log is shorter than the
	// committed prefix: log[l][idx] is undefined, and TLC cannot evaluate
	// the invariant (exit 76).
	{file: "known/leader-completeness-undefined.json", known: "leader-completeness-stale-leader", config: func(c *etcdraft.Config) { c.SnapshotEvery = 3 },
		signature: "model-invariant: LeaderCompletenessInv cannot be evaluated", step: 14},
	{file: "known/stale-term-append-response.json", known: "stale-term-append-response", config: func(c *etcdraft.Config) { c.CheckQuorum = true },
		signature: "spec-divergence: ReceiveAppendEntriesResponse MsgAppResp at Traceetcdraft.tla:170 (m.msuccess = ~logline.event.msg.reject)", step: 6},
	{file: "known/snapshot-taken-as-done.json", known: "snapshot-taken-as-done", config: func(c *etcdraft.Config) { c.SnapshotEvery = 3 },
		signature: "spec-divergence: ReceiveAppendEntriesRequest MsgHeartbeat at Traceetcdraft.tla:195 (Len(log[i]) = logline.event.log)", step: 30},
	{file: "known/snapshot-answer-subtype.json", known: "snapshot-answer-subtype", config: func(c *etcdraft.Config) { c.SnapshotEvery = 3 },
		signature: "spec-divergence: ReceiveAppendEntriesResponse MsgAppResp at Traceetcdraft.tla:167 (m.mdest   = logline.event.msg.to)", step: 17},
	{file: "known/snapshot-excludes-receiver.json", known: "snapshot-excludes-receiver", config: func(c *etcdraft.Config) { c.SnapshotEvery = 3 },
		signature: "spec-divergence: ReceiveAppendEntriesRequest MsgHeartbeat at Traceetcdraft.tla:195 (Len(log[i]) = logline.event.log)", step: 23},
	{file: "known/prevote-takes-term.json", known: "prevote-takes-term", config: func(c *etcdraft.Config) { c.PreVote = true },
		signature: "spec-divergence: BecomeFollower at Traceetcdraft.tla:383 (StepDownToFollower(i))", step: 7},
	{file: "known/duplicate-delivery.json", known: "duplicate-delivery",
		signature: "spec-divergence: ReceiveRequestVoteRequest MsgVote at Traceetcdraft.tla:176 (m.mdest = logline.event.msg.to)", step: 2},
	{file: "known/joint-configuration-change.json", known: "joint-configuration-change",
		signature: "spec-divergence: ChangeConf at Traceetcdraft.tla:332 (Len(logline.event.prop.cc.changes) = 1)", step: 3},
	{file: "known/configuration-change-spec-refuses.json", known: "configuration-change-spec-refuses",
		signature: `spec-divergence: ChangeConf at etcdraft.tla:441 (j \notin GetConfig(i) \union GetLearners(i))`, step: 3},
	{file: "known/restart-configuration-rebuilt.json", known: "restart-configuration-rebuilt", config: func(c *etcdraft.Config) { c.MaxSizePerMsg = 1 },
		signature: "spec-divergence: InitState at Traceetcdraft.tla:205 (config'[i].jointConfig = ConfFromLog(logline))", step: 2},
}

// Every shipped known disagreement has a reproducer, pinned: replayed, it
// fails the spec the way the disagreement shows, with the library's own
// oracles seeing nothing wrong, and the shipped known disagreements name
// it. The reproducers are minimized schedules that campaigns found.
func TestKnownDisagreementsPinned(t *testing.T) {
	shipped, err := guidance.ParseKnown(models.EtcdraftKnown, models.KnownFiles()[models.EtcdraftKnown])
	require.NoError(t, err)
	pinned := map[string]bool{}
	for _, c := range knownCases {
		t.Run(strings.TrimSuffix(filepath.Base(c.file), ".json"), func(t *testing.T) {
			cfg := specConfig(etcdraft.APIMixed, "mixed")
			if c.config != nil {
				c.config(&cfg)
			}
			ex, obs := measureInput(t, filepath.Join("testdata", c.file), cfg)
			require.Empty(t, ex.Failures, "the library's own oracles see nothing wrong")
			require.Len(t, obs.Failures, 1, "%v", obs.Failures)
			raw := obs.Failures[0]
			require.Equal(t, c.signature, raw.Signature, raw.Message+"\n"+raw.Detail)
			require.Equal(t, c.step, raw.Step)
			require.Empty(t, raw.Known)

			_, obs = measureKnown(t, filepath.Join("testdata", c.file), cfg)
			require.Len(t, obs.Failures, 1)
			k := obs.Failures[0]
			require.Equal(t, c.known, k.Known, k.Detail)
			require.Equal(t, "known: "+c.known, k.Signature)
			require.Equal(t, raw.Kind, k.Kind)
			require.Equal(t, raw.Step, k.Step)
			require.Contains(t, k.Detail, "signature: "+raw.Signature)
			pinned[c.known] = true
		})
	}
	for _, k := range shipped.Disagreements {
		require.True(t, pinned[k.ID], "known disagreement %s has no pinned reproducer", k.ID)
	}
}

// A failure that only looks like a known disagreement is new: the witness
// checks the trace for what the disagreement is. Here the vote gap's
// divergence is kept but the voter's refusal is rewritten into a grant:
// the same condition breaks, and it is not the known vote gap.
func TestKnownDisagreementNeedsItsWitness(t *testing.T) {
	m := knownMeasure(t)
	cfg := specConfig(etcdraft.APIRawNode, "off")
	f, err := etcdraft.NewFactory(cfg)
	require.NoError(t, err)
	s, err := f.New()
	require.NoError(t, err)
	in := readInput(t, "testdata/etcdraft-vote-gap.json")
	ex, err := s.Execute(in)
	require.NoError(t, err)
	for i, e := range ex.Spec {
		if strings.Contains(string(e.JSON), `"name":"SendRequestVoteResponse"`) && strings.Contains(string(e.JSON), `"reject":true`) {
			ex.Spec[i].JSON = []byte(strings.Replace(string(e.JSON), `"reject":true`, `"reject":false`, 1))
		}
	}
	obs, err := m.Measure(in, ex)
	require.NoError(t, err)
	require.Len(t, obs.Failures, 1)
	require.Empty(t, obs.Failures[0].Known, "%s", obs.Failures[0].Signature)
	require.True(t, strings.HasPrefix(obs.Failures[0].Signature, "spec-divergence: "), obs.Failures[0].Signature)
}

// measureKnown is measureInput with the shipped known disagreements.
func measureKnown(t *testing.T, file string, cfg etcdraft.Config) (*schedule.Execution, fuzzer.Observation) {
	t.Helper()
	m := knownMeasure(t)
	in := readInput(t, file)
	f, err := etcdraft.NewFactory(cfg)
	require.NoError(t, err)
	s, err := f.New()
	require.NoError(t, err)
	ex, err := s.Execute(in)
	require.NoError(t, err)
	obs, err := m.Measure(in, ex)
	require.NoError(t, err)
	return ex, obs
}

func readInput(t *testing.T, file string) *schedule.Input {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	in, err := schedule.DecodeInput(data)
	require.NoError(t, err, file)
	return in
}
