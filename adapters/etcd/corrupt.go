package etcd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// corruptMember is InjectCorruptMember: a key is written and every
// member catches up, then the last member is stopped, the value of the newest revision in its backend (bbolt bucket "key", each
// value an mvccpb.KeyValue whose field 5 is the value) gets its first
// byte changed, and the member starts again and catches up. It returns
// the cluster's revision after that.
func (e *execution) corruptMember(budget time.Duration) (int64, error) {
	p := len(e.members) - 1
	m := e.members[p]
	// A value to change, whatever the schedule wrote: a key of its own,
	// outside the keys the client history uses.
	ctx, cancel := context.WithTimeout(e.ctx, time.Duration(e.cfg.RequestTimeoutMS)*time.Millisecond)
	_, err := e.cl.put(ctx, e.members[0].client, "inject", "corrupt-member", 0)
	cancel()
	if err != nil {
		return 0, fmt.Errorf("writing the key to corrupt: %w", err)
	}
	if _, err := e.converged(newPatience(budget)); err != nil {
		return 0, err
	}
	// etcd commits its backend every 100 ms (and at a snapshot): give it
	// time, so that what the member applied is in the file.
	e.sleep(time.Second)
	m.proc.Kill()
	db := filepath.Join(m.data, "member", "snap", "db")
	bdb, err := bolt.Open(db, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return 0, err
	}
	err = bdb.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("key"))
		if b == nil {
			return errors.New("no bucket \"key\"")
		}
		k, v := b.Cursor().Last()
		if k == nil {
			return errors.New("no key written")
		}
		nv, ok := flipValue(v)
		if !ok {
			return errors.New("the newest revision has no value to change")
		}
		return b.Put(append([]byte(nil), k...), nv)
	})
	if cerr := bdb.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", db, err)
	}
	m.out.mark("backend changed behind etcd's back (inject corrupt-member)")
	e.record(schedule.EvCrash, p, -1, 0, "crash", nil)
	e.mu.Lock()
	e.down[p] = true
	e.mu.Unlock()
	e.restart(p)
	return e.converged(newPatience(budget))
}

// flipValue changes the first byte of field 5 (value) of an encoded
// mvccpb.KeyValue.
func flipValue(v []byte) ([]byte, bool) {
	out := append([]byte(nil), v...)
	for i := 0; i < len(out); {
		num, typ, n := protowire.ConsumeTag(out[i:])
		if n < 0 {
			return nil, false
		}
		j := i + n
		switch typ {
		case protowire.VarintType:
			_, m := protowire.ConsumeVarint(out[j:])
			if m < 0 {
				return nil, false
			}
			i = j + m
		case protowire.BytesType:
			l, m := protowire.ConsumeVarint(out[j:])
			if m < 0 {
				return nil, false
			}
			if num == 5 && l > 0 {
				out[j+m] ^= 0x20
				return out, true
			}
			i = j + m + int(l)
		default:
			return nil, false
		}
	}
	return nil, false
}
