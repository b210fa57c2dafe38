package etcd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func entry(t *testing.T, term, index uint64, data string) []byte {
	b, err := proto.Marshal(&raftpb.Entry{Term: proto.Uint64(term), Index: proto.Uint64(index), Data: []byte(data)})
	require.NoError(t, err)
	return b
}

// The msgappv2 decoder rebuilds the short frames of an append stream from
// the state the full frames leave, as etcd's own decoder does.
func TestAppV2Decoder(t *testing.T) {
	full := &raftpb.Message{Type: raftpb.MessageType_MsgApp.Enum(), From: proto.Uint64(7), To: proto.Uint64(9),
		Term: proto.Uint64(5), LogTerm: proto.Uint64(4), Index: proto.Uint64(10), Commit: proto.Uint64(9),
		Entries: []*raftpb.Entry{{Term: proto.Uint64(5), Index: proto.Uint64(11), Data: []byte("a")}}}
	fb, err := proto.Marshal(full)
	require.NoError(t, err)
	var s bytes.Buffer
	s.WriteByte(appV2Message)
	s.Write(u64(uint64(len(fb))))
	s.Write(fb)
	s.WriteByte(appV2LinkHeartbeat)
	s.WriteByte(appV2Entries)
	s.Write(u64(2))
	for i, d := range []string{"b", "c"} {
		e := entry(t, 5, uint64(12+i), d)
		s.Write(u64(uint64(len(e))))
		s.Write(e)
	}
	s.Write(u64(11)) // commit
	dec := &appV2Decoder{r: &s, local: 9, remote: 7}

	m, err := dec.decode()
	require.NoError(t, err)
	require.True(t, proto.Equal(full, m))
	_, err = dec.decode()
	require.ErrorIs(t, err, errLinkHeartbeat)
	m, err = dec.decode()
	require.NoError(t, err)
	require.Equal(t, raftpb.MessageType_MsgApp, m.GetType())
	require.Equal(t, []uint64{7, 9, 5, 5, 11, 11}, []uint64{m.GetFrom(), m.GetTo(), m.GetTerm(), m.GetLogTerm(), m.GetIndex(), m.GetCommit()})
	require.Len(t, m.Entries, 2)
	require.Equal(t, "c", string(m.Entries[1].Data))
	_, err = dec.decode()
	require.True(t, errors.Is(err, io.EOF))
}

func TestAppV2DecoderRefusesUnknownFrames(t *testing.T) {
	_, err := (&appV2Decoder{r: bytes.NewReader([]byte{7})}).decode()
	require.ErrorContains(t, err, "unknown frame type 7")
}

// The message codec (streams and snapshot heads) round-trips, and tells
// a link heartbeat apart.
func TestMessageCodec(t *testing.T) {
	m := &raftpb.Message{Type: raftpb.MessageType_MsgVote.Enum(), From: proto.Uint64(1), To: proto.Uint64(2), Term: proto.Uint64(3)}
	b, err := encodeMessage(m)
	require.NoError(t, err)
	r := bytes.NewReader(append(append([]byte(nil), messageLinkHeartbeatFrame...), b...))
	dec := &messageDecoder{r: r}
	_, err = dec.decode()
	require.ErrorIs(t, err, errLinkHeartbeat)
	got, err := dec.decode()
	require.NoError(t, err)
	require.True(t, proto.Equal(m, got))
	_, err = (&messageDecoder{r: bytes.NewReader(u64(maxMessage + 1))}).decode()
	require.ErrorContains(t, err, "above the proxy's limit")
}

// The member IDs the proxy computes are etcd's (13668033151171901709, the ID etcd 3.4.23
// gave the single member of the cluster below).
func TestMemberID(t *testing.T) {
	require.Equal(t, uint64(0xbdae9bbc11dd390d), memberID("http://127.0.0.1:23801", "etcd-cluster"))
}
