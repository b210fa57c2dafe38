package etcd

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"slices"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
)

// memberLog is what a member printed over one execution (every
// incarnation): the last bytes of it (osproc.CapBuffer), and every line
// that reports a panic or a fatal error, whole.
type memberLog struct {
	kept *osproc.CapBuffer

	mu      sync.Mutex
	partial []byte
	alarms  []string
}

func newMemberLog(limit int) *memberLog { return &memberLog{kept: osproc.NewCapBuffer(limit)} }

func (b *memberLog) Write(p []byte) (int, error) {
	_, _ = b.kept.Write(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			break
		}
		if line := string(b.partial[:i]); isAlarm(line) && len(b.alarms) < 16 {
			b.alarms = append(b.alarms, line)
		}
		b.partial = b.partial[i+1:]
	}
	if len(b.partial) > 1<<16 {
		b.partial = b.partial[:0]
	}
	return len(p), nil
}

// mark writes a line of the adapter's own into the output.
func (b *memberLog) mark(s string) { _, _ = b.Write([]byte("--- modelfuzz: " + s + " ---\n")) }

// String is the end of the output, with a note of what was dropped
// before it.
func (b *memberLog) String() string { return b.kept.String() }

// Alarms returns the panic and fatal lines the member printed.
func (b *memberLog) Alarms() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.alarms)
}

// isAlarm: a Go panic, or a log line of level panic or fatal (zap's JSON
// in 3.5 and later, capnslog's letters "C"/"P" in 3.4's default logger).
func isAlarm(line string) bool {
	switch {
	case strings.HasPrefix(line, "panic: "), strings.HasPrefix(line, "fatal error: "):
		return true
	case strings.Contains(line, `"level":"panic"`), strings.Contains(line, `"level":"fatal"`):
		return true
	}
	return capnslogAlarm.MatchString(line)
}

var capnslogAlarm = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [CP] \| `)

// alarmSignature blanks what differs between two occurrences of one
// alarm: numbers, hexadecimal member IDs, timestamps, the zap fields after
// the message.
func alarmSignature(line string) string {
	if i := strings.Index(line, `"msg":"`); i >= 0 {
		rest := line[i+7:]
		if j := strings.Index(rest, `"`); j >= 0 {
			line = rest[:j]
		}
	} else if m := capnslogAlarm.FindString(line); m != "" {
		line = line[len(m):]
	}
	line = hexID.ReplaceAllString(line, "ID")
	return digits.ReplaceAllString(line, "N")
}

var (
	hexID  = regexp.MustCompile(`\b[0-9a-f]{12,16}\b`)
	digits = regexp.MustCompile(`[0-9]+`)
)
