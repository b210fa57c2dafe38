package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"time"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/hub"
	"github.com/modelfuzz/modelfuzz/record"
)

// leaveWait is how long a worker that stops waits for the hub to take
// what it has not published yet (the rest is published when it joins
// again).
const leaveWait = 30 * time.Second

// joinHub makes this campaign a worker of the hub's (--join): its settings
// must be the hub campaign's; what it commits is published, what the
// others find comes in through opt.Exchange, and its random choices are
// its own stream of the campaign's seed. It returns the store the loop
// commits to.
func (c *Campaign) joinHub(opt *fuzzer.Options) (record.Store, error) {
	s := c.Settings
	if guidance.IsOnline(s.Strategy) || guidance.IsLearning(s.Strategy) {
		return nil, fmt.Errorf("--join: strategy %s keeps no corpus to share; a hub shares the campaigns of model, line, trace and random", s.Strategy)
	}
	name := s.Worker
	if name == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("--worker: no name given and the host's is unknown: %v", err)
		}
		name = host
	}
	if err := hub.CheckWorkerName(name); err != nil {
		return nil, err
	}
	settings, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(s.CorpusDir)
	if err != nil {
		return nil, err
	}
	w, err := hub.Join(hub.JoinOptions{URL: s.Join, Name: name, Corpus: dir, Settings: settings,
		Check: func(stored []byte) error { return checkHubSettings(stored, s) }, Logf: opt.Logf,
		Warnf: func(format string, args ...any) { c.logger.Warn(fmt.Sprintf(format, args...)) }})
	if err != nil {
		return nil, err
	}
	c.closers = append(c.closers, func() error { w.Close(leaveWait); return nil })
	if !c.Continued {
		if err := c.Store.SetCampaign(s); err != nil {
			return nil, err
		}
	}
	opt.Exchange, opt.Stream = w, workerStream(name)
	c.logger.Info("joined the hub's campaign", "hub", s.Join, "worker", name)
	return w.Store(c.Store), nil
}

// checkHubSettings refuses to join a campaign whose settings differ from
// the joining one's, naming the first difference.
func checkHubSettings(stored []byte, s *Settings) error {
	var hs Settings
	if err := json.Unmarshal(stored, &hs); err != nil {
		return fmt.Errorf("its campaign's settings cannot be read: %v", err)
	}
	if d := hs.Diff(s); d != "" {
		return errors.New("its campaign runs with " + d + "; a worker joins with the campaign's settings")
	}
	return nil
}

// workerStream is the worker's own stream of the campaign's seed.
func workerStream(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() | 1
}
