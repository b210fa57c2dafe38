package etcd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// The codecs of etcd's peer streams (rafthttp): what a member writes on a
// stream another member opened to it. Written from the description of
// the format in etcd's msg_codec.go and msgappv2_codec.go; the formats are
// the same in every release from 3.0 on.
//
//   - "message": each message is an 8-byte big-endian length and the
//     message's protobuf encoding.
//   - "msgappv2": each frame starts with a type byte: 0 is a link
//     heartbeat (no body); 2 is a whole message (8-byte length, protobuf);
//     1 is a MsgApp of the leader's term that continues the previous one
//     exactly (8-byte entry count, each entry as an 8-byte length and its
//     protobuf, then the 8-byte commit index): its term, log term and
//     index are the decoder's state, which every frame of type 2 resets.
//
// The proxy decodes both and never re-encodes onto the stream it read
// from: it delivers each message on its own (pipelineBody), so dropping,
// duplicating or reordering messages never leaves a stream decoder at the
// receiver with a state the sender's encoder did not have.

// maxMessage bounds one decoded message (etcd's own limit is 512 MB).
const maxMessage = 64 << 20

const (
	appV2LinkHeartbeat = 0
	appV2Entries       = 1
	appV2Message       = 2
)

// errLinkHeartbeat is returned by the decoders for a link heartbeat, the
// frame rafthttp sends to keep an idle stream open: not a raft message.
var errLinkHeartbeat = errors.New("link heartbeat")

// decoder reads the raft messages of one peer stream.
type decoder interface {
	// decode returns the next message, errLinkHeartbeat for a link
	// heartbeat, or the stream's error.
	decode() (*raftpb.Message, error)
}

// messageDecoder reads the "message" stream and snapshot bodies.
type messageDecoder struct{ r io.Reader }

func (d *messageDecoder) decode() (*raftpb.Message, error) {
	var lb [8]byte
	if _, err := io.ReadFull(d.r, lb[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint64(lb[:])
	if n > maxMessage {
		return nil, fmt.Errorf("message of %d bytes, above the proxy's limit of %d", n, maxMessage)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(d.r, buf); err != nil {
		return nil, err
	}
	m := &raftpb.Message{}
	if err := proto.Unmarshal(buf, m); err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	if isLinkHeartbeat(m) {
		return nil, errLinkHeartbeat
	}
	return m, nil
}

// isLinkHeartbeat: rafthttp's link heartbeat is a MsgHeartbeat from and
// to member 0.
func isLinkHeartbeat(m *raftpb.Message) bool {
	return m.GetType() == raftpb.MessageType_MsgHeartbeat && m.GetFrom() == 0 && m.GetTo() == 0
}

// appV2Decoder reads the "msgappv2" stream from member remote to local.
type appV2Decoder struct {
	r             io.Reader
	local, remote uint64
	term, index   uint64
}

func (d *appV2Decoder) u64() (uint64, error) {
	var b [8]byte
	if _, err := io.ReadFull(d.r, b[:]); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b[:]), nil
}

func (d *appV2Decoder) bytes(n uint64) ([]byte, error) {
	if n > maxMessage {
		return nil, fmt.Errorf("msgappv2 frame of %d bytes, above the proxy's limit of %d", n, maxMessage)
	}
	buf := make([]byte, n)
	_, err := io.ReadFull(d.r, buf)
	return buf, err
}

func (d *appV2Decoder) decode() (*raftpb.Message, error) {
	var tb [1]byte
	if _, err := io.ReadFull(d.r, tb[:]); err != nil {
		return nil, err
	}
	switch tb[0] {
	case appV2LinkHeartbeat:
		return nil, errLinkHeartbeat
	case appV2Entries:
		n, err := d.u64()
		if err != nil {
			return nil, err
		}
		if n > maxMessage {
			return nil, fmt.Errorf("msgappv2: %d entries", n)
		}
		m := &raftpb.Message{Type: raftpb.MessageType_MsgApp.Enum(), From: proto.Uint64(d.remote), To: proto.Uint64(d.local),
			Term: proto.Uint64(d.term), LogTerm: proto.Uint64(d.term), Index: proto.Uint64(d.index)}
		for range n {
			size, err := d.u64()
			if err != nil {
				return nil, err
			}
			b, err := d.bytes(size)
			if err != nil {
				return nil, err
			}
			e := &raftpb.Entry{}
			if err := proto.Unmarshal(b, e); err != nil {
				return nil, fmt.Errorf("msgappv2 entry: %w", err)
			}
			m.Entries = append(m.Entries, e)
			d.index++
		}
		c, err := d.u64()
		if err != nil {
			return nil, err
		}
		m.Commit = proto.Uint64(c)
		return m, nil
	case appV2Message:
		size, err := d.u64()
		if err != nil {
			return nil, err
		}
		b, err := d.bytes(size)
		if err != nil {
			return nil, err
		}
		m := &raftpb.Message{}
		if err := proto.Unmarshal(b, m); err != nil {
			return nil, fmt.Errorf("msgappv2 message: %w", err)
		}
		d.term, d.index = m.GetTerm(), m.GetIndex()
		if l := len(m.Entries); l > 0 {
			d.index = m.Entries[l-1].GetIndex()
		}
		return m, nil
	}
	return nil, fmt.Errorf("msgappv2: unknown frame type %d", tb[0])
}

// encodeMessage is the "message" codec's frame of m (also the head of a
// snapshot body).
func encodeMessage(m *raftpb.Message) ([]byte, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 8, 8+len(b))
	binary.BigEndian.PutUint64(out, uint64(len(b)))
	return append(out, b...), nil
}

// appV2LinkHeartbeatFrame is what the proxy writes on a msgappv2 stream to
// keep it open; messageLinkHeartbeatFrame the same on a message stream.
var (
	appV2LinkHeartbeatFrame      = []byte{appV2LinkHeartbeat}
	messageLinkHeartbeatFrame, _ = encodeMessage(&raftpb.Message{Type: raftpb.MessageType_MsgHeartbeat.Enum()})
)
