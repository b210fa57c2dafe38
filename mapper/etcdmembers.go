package mapper

import (
	"github.com/modelfuzz/modelfuzz/schedule"
)

// etcdMembers follows the servers in each node's progress tracker (its
// applied configuration), as the library keeps it: the bootstrap's voters
// at first (Bootstrap applies its configuration entries to the tracker at
// once), the configuration of every entry applied (EvConf), the
// snapshot's on a restart (the library restores the tracker from the
// storage's snapshot, and the entries after it are applied again) and on
// an installed snapshot. Its use: RawNode.Step (go.etcd.io/raft/v3
// rawnode.go, "ErrStepPeerNotFound"; the goroutine API the same in
// node.go) drops a response whose sender is not in the receiver's tracker
// before raft.Step sees it, so such a receipt changes nothing, not even
// the receiver's term.
type etcdMembers struct {
	cur, snap, offered []map[int]bool
}

func newEtcdMembers(p EtcdraftParams, n int) etcdMembers {
	m := etcdMembers{cur: make([]map[int]bool, n), snap: make([]map[int]bool, n), offered: make([]map[int]bool, n)}
	boot := map[int]bool{}
	for q := 0; q < p.Nodes; q++ {
		boot[q] = true
	}
	for q := 0; q < n; q++ {
		m.cur[q], m.snap[q] = map[int]bool{}, map[int]bool{}
		if q < p.Nodes {
			m.cur[q] = boot
			if !p.BootLog {
				m.snap[q] = boot
			}
		}
	}
	return m
}

// set is the processes of configuration conf (parseConfig's), every role.
func confProcesses(conf map[string]any) map[int]bool {
	s := map[int]bool{}
	for _, k := range []string{"voters", "outgoing", "learners", "learnersNext"} {
		ids, _ := conf[k].([]any)
		for _, id := range ids {
			if x, ok := id.(int64); ok {
				s[int(x)-1] = true
			}
		}
	}
	return s
}

// event follows e.
func (m *etcdMembers) event(e *schedule.Event) {
	p := e.Node
	if p < 0 || p >= len(m.cur) {
		return
	}
	switch e.Kind {
	case schedule.EvConf:
		text, _ := sarg(e, schedule.ArgConfig)
		if conf, err := parseConfig(text); err == nil {
			m.cur[p] = confProcesses(conf)
		}
	case schedule.EvSnapshot:
		m.snap[p] = m.cur[p]
	case schedule.EvInstall:
		if m.offered[p] != nil {
			m.cur[p], m.snap[p] = m.offered[p], m.offered[p]
		}
	case schedule.EvRestart:
		m.cur[p] = m.snap[p]
	}
}

// offer records the configuration of a snapshot sent to p.
func (m *etcdMembers) offer(p int, conf map[string]any) {
	if p >= 0 && p < len(m.offered) {
		m.offered[p] = confProcesses(conf)
	}
}

// dropsResponse says whether p's library drops a response from q.
func (m *etcdMembers) dropsResponse(p, q int, typ string) bool {
	switch typ {
	case schedule.MsgAppResp, schedule.MsgVoteResp, schedule.MsgPreVoteResp, schedule.MsgHeartbeatResp, schedule.MsgReadIndexResp:
	default:
		return false
	}
	return p >= 0 && p < len(m.cur) && !m.cur[p][q]
}
