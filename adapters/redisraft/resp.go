package redisraft

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// RESP, the protocol of Redis (version 2, what RedisRaft's nodes speak to
// each other through hiredis): a value is a simple string (+OK), an error
// (-ERR ...), an integer (:42), a bulk string ($3 foo, $-1 for none) or an
// array of values (*2 ..., *-1 for none); a command is an array of bulk
// strings. Replies come back in the order of the commands on a connection.

// value is one RESP value.
type value struct {
	kind  byte // '+', '-', ':', '$' or '*'
	str   []byte
	num   int64
	elems []value
	null  bool // $-1 or *-1
}

// maxBulk bounds a bulk string and an array's length: a snapshot chunk is
// the largest thing RedisRaft sends (its snapshot-req-max-size, 64 KiB by
// default).
const maxBulk = 64 << 20

var (
	errTooLarge   = errors.New("resp: value larger than 64 MiB")
	errIncomplete = errors.New("resp: incomplete value")
)

// parseValue parses the value at the start of b: it returns the value and
// the number of bytes it takes, or errIncomplete when b holds only part of
// it. The value's strings point into b.
func parseValue(b []byte) (value, int, error) {
	return parseAt(b, 0, 0)
}

func parseAt(b []byte, at, depth int) (value, int, error) {
	if depth > 8 {
		return value{}, 0, errors.New("resp: arrays nested deeper than 8")
	}
	i := bytes.Index(b[at:], []byte("\r\n"))
	if i < 0 {
		if len(b)-at > 64<<10 {
			return value{}, 0, errors.New("resp: line longer than 64 KiB")
		}
		return value{}, 0, errIncomplete
	}
	if i == 0 {
		return value{}, 0, errors.New("resp: empty line")
	}
	line := b[at : at+i]
	next := at + i + 2
	v := value{kind: line[0]}
	rest := line[1:]
	switch v.kind {
	case '+', '-':
		v.str = rest
	case ':':
		n, err := strconv.ParseInt(string(rest), 10, 64)
		if err != nil {
			return value{}, 0, fmt.Errorf("resp: bad integer %q", rest)
		}
		v.num = n
	case '$':
		n, err := strconv.ParseInt(string(rest), 10, 64)
		switch {
		case err != nil || n < -1:
			return value{}, 0, fmt.Errorf("resp: bad bulk length %q", rest)
		case n > maxBulk:
			return value{}, 0, errTooLarge
		case n == -1:
			v.null = true
			return v, next, nil
		}
		end := next + int(n)
		if end+2 > len(b) {
			return value{}, 0, errIncomplete
		}
		if b[end] != '\r' || b[end+1] != '\n' {
			return value{}, 0, errors.New("resp: bulk string not followed by CRLF")
		}
		v.str = b[next:end]
		next = end + 2
	case '*':
		n, err := strconv.ParseInt(string(rest), 10, 64)
		switch {
		case err != nil || n < -1:
			return value{}, 0, fmt.Errorf("resp: bad array length %q", rest)
		case n > maxBulk:
			return value{}, 0, errTooLarge
		case n == -1:
			v.null = true
			return v, next, nil
		}
		v.elems = make([]value, 0, min(n, 1024))
		for k := int64(0); k < n; k++ {
			e, end, err := parseAt(b, next, depth+1)
			if err != nil {
				return value{}, 0, err
			}
			v.elems = append(v.elems, e)
			next = end
		}
	default:
		return value{}, 0, fmt.Errorf("resp: unknown type byte %q", v.kind)
	}
	return v, next, nil
}

// respReader reads RESP values off a blocking stream (the fuzzer's own
// connections to a node).
type respReader struct {
	r   io.Reader
	buf []byte
	off int // parsed up to here
}

func newRESPReader(r io.Reader) *respReader { return &respReader{r: r} }

// read returns the next value and its bytes (valid until the next call).
func (rr *respReader) read() (value, []byte, error) {
	rr.buf = rr.buf[rr.off:]
	rr.off = 0
	for {
		if len(rr.buf) > 0 {
			v, n, err := parseValue(rr.buf)
			if err == nil {
				rr.off = n
				return v, rr.buf[:n], nil
			}
			if err != errIncomplete {
				return value{}, nil, err
			}
		}
		if cap(rr.buf)-len(rr.buf) < 4096 {
			nb := make([]byte, len(rr.buf), 2*cap(rr.buf)+8192)
			copy(nb, rr.buf)
			rr.buf = nb
		}
		n, err := rr.r.Read(rr.buf[len(rr.buf):cap(rr.buf)])
		rr.buf = rr.buf[:len(rr.buf)+n]
		if err != nil && n == 0 {
			if err == io.EOF && len(rr.buf) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return value{}, nil, err
		}
	}
}

// buffered reports whether bytes read from the stream wait, unparsed.
func (rr *respReader) buffered() bool { return len(rr.buf) > rr.off }

// command returns the words of a command (an array of bulk strings), or
// nil when v is not one.
func (v value) command() [][]byte {
	if v.kind != '*' || v.null || len(v.elems) == 0 {
		return nil
	}
	out := make([][]byte, len(v.elems))
	for i, e := range v.elems {
		if e.kind != '$' || e.null {
			return nil
		}
		out[i] = e.str
	}
	return out
}

// text renders a value for a person: OK, ERR ..., 42, "foo", (nil),
// [1 2 "x"].
func (v value) text() string {
	switch v.kind {
	case '+':
		return string(v.str)
	case '-':
		return "error " + string(v.str)
	case ':':
		return strconv.FormatInt(v.num, 10)
	case '$':
		if v.null {
			return "(nil)"
		}
		return strconv.Quote(string(v.str))
	case '*':
		if v.null {
			return "(nil)"
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range v.elems {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(e.text())
		}
		b.WriteByte(']')
		return b.String()
	}
	return "?"
}

// appendCommand appends the RESP encoding of a command.
func appendCommand(dst []byte, words ...string) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(words)), 10)
	dst = append(dst, '\r', '\n')
	for _, w := range words {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(w)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, w...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}
