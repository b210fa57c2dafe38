package redisraft

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// What the proxy reads on a node-to-node connection, as trace events:
// the RAFT.* commands RedisRaft's nodes send each other (its raft.c and
// snapshot.c write them, its redisraft.c parses them) and their replies,
// each decoded into the fields a mapper reads. The formats, as RedisRaft
// ade4aa8 writes them:
//
//	RAFT.AE <to> <from> <leader>:<term>:<prev_idx>:<prev_term>:<commit>:<msg_id> <n> [<term>:<id>:<session>:<type> <data>]...
//	  reply [<term>, <success>, <current_idx>, <msg_id>]
//	RAFT.REQUESTVOTE <to> <from> <prevote>:<term>:<candidate>:<last_idx>:<last_term>
//	  reply [<prevote>, <request_term>, <term>, <granted>]
//	RAFT.SNAPSHOT <to> <from> <term>:<leader>:<msg_id>:<index>:<term>:<offset>:<last_chunk> <data>
//	  reply [<msg_id>, <index>, <term>, <offset>, <success>, <last_chunk>]
//	RAFT.TIMEOUT_NOW
//	  reply +OK
//	RAFT.NODESHUTDOWN <id>
//
// Node ids are process numbers plus one (the adapter starts node p with
// raft.id p+1); the args that name a node hold its process number.

// The message types and args (package schedule's RedisRaft vocabulary).
const (
	TypeAE          = schedule.RRAppendEntries
	TypeRequestVote = schedule.RRRequestVote
	TypeSnapshot    = schedule.RRSnapshot
	TypeTimeoutNow  = schedule.RRTimeoutNow
	TypeShutdown    = schedule.RRNodeShutdown
	replySuffix     = schedule.RRReplySuffix

	ArgLeader  = schedule.RRArgLeader
	ArgMsgID   = schedule.RRArgMsgID
	ArgPrevote = schedule.RRArgPrevote
	ArgSuccess = schedule.RRArgSuccess
	ArgGranted = schedule.RRArgGranted
	ArgReqTerm = schedule.RRArgReqTerm
	ArgOffset  = schedule.RRArgOffset
	ArgLast    = schedule.RRArgLast
	ArgSize    = schedule.RRArgSize
	ArgError   = schedule.RRArgError
	ArgReply   = schedule.RRArgReply
	ArgNode    = schedule.RRArgNode
	ArgArgs    = schedule.RRArgArgs
)

// ReplyType is the type of the answer to a command of type typ.
func ReplyType(typ string) string { return typ + replySuffix }

// decodeCommand describes a command read from a node: its type and args.
func decodeCommand(words [][]byte) (typ string, args []schedule.Arg) {
	if len(words) == 0 {
		return "?", nil
	}
	name := strings.ToUpper(string(words[0]))
	switch name {
	case TypeAE:
		if len(words) >= 5 {
			if f := fields(words[3], 6); f != nil {
				n, _ := strconv.ParseInt(string(words[4]), 10, 64)
				return name, []schedule.Arg{
					schedule.I(schedule.ArgTerm, f[1]), schedule.I(schedule.ArgLogTerm, f[3]),
					schedule.I(schedule.ArgIndex, f[2]), schedule.I(schedule.ArgCommit, f[4]),
					schedule.I(ArgLeader, f[0]-1), schedule.I(ArgMsgID, f[5]),
					schedule.S(schedule.ArgEntries, entriesText(words[5:], n)),
				}
			}
		}
	case TypeRequestVote:
		if len(words) == 4 {
			if f := fields(words[3], 5); f != nil {
				return name, []schedule.Arg{
					schedule.I(schedule.ArgTerm, f[1]), schedule.I(schedule.ArgLogTerm, f[4]),
					schedule.I(schedule.ArgIndex, f[3]), schedule.I(schedule.ArgVote, f[2]-1),
					schedule.I(ArgPrevote, f[0]),
				}
			}
		}
	case TypeSnapshot:
		if len(words) == 5 {
			if f := fields(words[3], 7); f != nil {
				return name, []schedule.Arg{
					schedule.I(schedule.ArgTerm, f[0]), schedule.I(ArgLeader, f[1]-1), schedule.I(ArgMsgID, f[2]),
					schedule.I(schedule.ArgSnapIndex, f[3]), schedule.I(schedule.ArgSnapTerm, f[4]),
					schedule.I(ArgOffset, f[5]), schedule.I(ArgLast, f[6]), schedule.I(ArgSize, int64(len(words[4]))),
				}
			}
		}
	case TypeTimeoutNow:
		return name, nil
	case TypeShutdown:
		if len(words) == 2 {
			if id, err := strconv.ParseInt(string(words[1]), 10, 64); err == nil {
				return name, []schedule.Arg{schedule.I(ArgNode, id-1)}
			}
		}
	}
	// Another command, or one of these in a shape this adapter does not
	// know: its words, so that a reader sees what went over the wire.
	return name, []schedule.Arg{schedule.S(ArgArgs, wordsText(words[1:]))}
}

// decodeReply describes the answer to a command of type typ.
func decodeReply(typ string, v value) []schedule.Arg {
	if v.kind == '-' {
		return []schedule.Arg{schedule.S(ArgError, string(v.str))}
	}
	ints := func(n int) []int64 {
		if v.kind != '*' || len(v.elems) != n {
			return nil
		}
		out := make([]int64, n)
		for i, e := range v.elems {
			if e.kind != ':' {
				return nil
			}
			out[i] = e.num
		}
		return out
	}
	switch typ {
	case TypeAE:
		if f := ints(4); f != nil {
			return []schedule.Arg{schedule.I(schedule.ArgTerm, f[0]), schedule.I(ArgSuccess, f[1]),
				schedule.I(schedule.ArgIndex, f[2]), schedule.I(ArgMsgID, f[3])}
		}
	case TypeRequestVote:
		if f := ints(4); f != nil {
			return []schedule.Arg{schedule.I(schedule.ArgTerm, f[2]), schedule.I(ArgGranted, f[3]),
				schedule.I(ArgReqTerm, f[1]), schedule.I(ArgPrevote, f[0])}
		}
	case TypeSnapshot:
		if f := ints(6); f != nil {
			return []schedule.Arg{schedule.I(schedule.ArgTerm, f[2]), schedule.I(ArgSuccess, f[4]),
				schedule.I(schedule.ArgSnapIndex, f[1]), schedule.I(ArgMsgID, f[0]),
				schedule.I(ArgOffset, f[3]), schedule.I(ArgLast, f[5])}
		}
	}
	return []schedule.Arg{schedule.S(ArgReply, v.text())}
}

// fields parses n integers separated by colons.
func fields(b []byte, n int) []int64 {
	parts := bytes.Split(b, []byte{':'})
	if len(parts) != n {
		return nil
	}
	out := make([]int64, n)
	for i, p := range parts {
		x, err := strconv.ParseInt(string(p), 10, 64)
		if err != nil {
			return nil
		}
		out[i] = x
	}
	return out
}

// RedisRaft's log entry types (raft.h's raft_logtype_e).
const (
	logNormal       = 0
	logAddNonvoting = 1
	logAddNode      = 2
	logRemoveNode   = 3
	logNoOp         = 4
)

// entriesText renders the n entries of an AE (header and data pairs) as
// the Raft vocabulary's entries arg: "term:text" each, comma-separated,
// text as entryText makes it.
func entriesText(pairs [][]byte, n int64) string {
	var b strings.Builder
	for i := int64(0); i < n && int(2*i+1) < len(pairs); i++ {
		f := fields(pairs[2*i], 4) // term:id:session:type
		if i > 0 {
			b.WriteByte(',')
		}
		if f == nil {
			b.WriteString("0:?")
			continue
		}
		b.WriteString(strconv.FormatInt(f[0], 10))
		b.WriteByte(':')
		b.WriteString(entryText(f[3], pairs[2*i+1]))
	}
	return b.String()
}

// entryText names an entry by its content: "" for a new leader's no-op,
// the commands of a client's entry as EntryValue writes them, "conf:..."
// for a configuration change, "type=N:<length>" for another type.
func entryText(typ int64, data []byte) string {
	switch typ {
	case logNoOp:
		return ""
	case logNormal:
		if cmds, ok := parseEntryCommands(data); ok {
			return EntryValue(cmds)
		}
		return "data:" + strconv.Itoa(len(data))
	case logAddNonvoting:
		return "conf:add-nonvoting"
	case logAddNode:
		return "conf:add-node"
	case logRemoveNode:
		return "conf:remove-node"
	}
	return "type=" + strconv.FormatInt(typ, 10) + ":" + strconv.Itoa(len(data))
}

// EntryValue is the value of a client's entry in the trace and in the
// model: its commands, words separated by spaces, commands by " ; "
// ("SET k0 4", "SET k0 8 ; INCR k0"). A word that is not plain (letters,
// digits, _ . = + -) is written in hex ("0x...") so that the text never
// holds the separators of the entries arg.
func EntryValue(cmds [][]string) string {
	var b strings.Builder
	for i, c := range cmds {
		if i > 0 {
			b.WriteString(" ; ")
		}
		b.WriteString(wordsText(toBytes(c)))
	}
	return b.String()
}

func toBytes(ws []string) [][]byte {
	out := make([][]byte, len(ws))
	for i, w := range ws {
		out[i] = []byte(w)
	}
	return out
}

func wordsText(words [][]byte) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if plain(w) {
			b.Write(w)
			continue
		}
		b.WriteString("0x")
		const hex = "0123456789abcdef"
		for _, c := range w {
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func plain(w []byte) bool {
	if len(w) == 0 || len(w) > 64 {
		return false
	}
	for _, c := range w {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '=', c == '+', c == '-':
		default:
			return false
		}
	}
	return true
}

// parseEntryCommands reads the commands of a client's entry: RedisRaft
// serializes them (serialization.c) as a multi-bulk with \n line ends,
// "*2\n" then a metadata array ("*3\n:<asking>\n:<flags>\n$-1\n" or an ACL
// bulk) then the commands ("*<n>\n", each "*<argc>\n" and "$<len>\n<bytes>\n"
// per word).
func parseEntryCommands(data []byte) ([][]string, bool) {
	p := entryParser{b: data}
	if n, ok := p.header('*'); !ok || n != 2 {
		return nil, false
	}
	if !p.skipValue() {
		return nil, false
	}
	n, ok := p.header('*')
	if !ok || n < 0 || n > 64 {
		return nil, false
	}
	cmds := make([][]string, 0, n)
	for i := 0; i < n; i++ {
		argc, ok := p.header('*')
		if !ok || argc < 1 || argc > 1024 {
			return nil, false
		}
		words := make([]string, 0, argc)
		for j := 0; j < argc; j++ {
			w, ok := p.bulk()
			if !ok {
				return nil, false
			}
			words = append(words, w)
		}
		cmds = append(cmds, words)
	}
	return cmds, true
}

type entryParser struct{ b []byte }

// header reads "<c><number>\n".
func (p *entryParser) header(c byte) (int, bool) {
	if len(p.b) == 0 || p.b[0] != c {
		return 0, false
	}
	i := bytes.IndexByte(p.b, '\n')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(string(p.b[1:i]))
	if err != nil {
		return 0, false
	}
	p.b = p.b[i+1:]
	return n, true
}

func (p *entryParser) bulk() (string, bool) {
	n, ok := p.header('$')
	if !ok || n < 0 || n+1 > len(p.b) || p.b[n] != '\n' {
		return "", false
	}
	s := string(p.b[:n])
	p.b = p.b[n+1:]
	return s, true
}

// skipValue skips one value: an integer, a bulk (or $-1) or an array of
// them.
func (p *entryParser) skipValue() bool {
	if len(p.b) == 0 {
		return false
	}
	switch p.b[0] {
	case ':':
		_, ok := p.header(':')
		return ok
	case '$':
		n, ok := p.header('$')
		if !ok {
			return false
		}
		if n < 0 {
			return true
		}
		if n+1 > len(p.b) {
			return false
		}
		p.b = p.b[n+1:]
		return true
	case '*':
		n, ok := p.header('*')
		if !ok || n > 64 {
			return false
		}
		for i := 0; i < n; i++ {
			if !p.skipValue() {
				return false
			}
		}
		return true
	}
	return false
}
