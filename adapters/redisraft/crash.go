package redisraft

import (
	"regexp"
	"strings"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// What a node's log says when it dies, and the signature a bug gets from
// it. Redis writes a crash report ("=== REDIS BUG REPORT START ===") on a
// failed assertion of its own or of a module (RedisModule_Assert: "===
// ASSERTION FAILED ===" then "==> file:line 'expr' is not true"), on a
// serverPanic ("Guru Meditation: msg #file:line") and on a signal
// ("crashed by signal: N", then a backtrace); a C assert() of RedisRaft's
// raft library prints glibc's "file:line: function: Assertion `expr'
// failed." first; RedisRaft's own PANIC writes "REDIS RAFT PANIC" and its
// message. Line numbers stay in the signature: the binaries are fixed, and
// two assertions of one file are two bugs. Digits of messages are blanked
// (terms, indexes).

var (
	reRedisAssert = regexp.MustCompile(`==> ([^\s:]+):(\d+) '(.*)' is not true`)
	reGlibcAssert = regexp.MustCompile(`([^\s:/]+\.[ch]):(\d+): ([^:]+): Assertion ` + "`" + `(.*)' failed`)
	reGuru        = regexp.MustCompile(`Guru Meditation: (.*) #([^\s:]+):(\d+)`)
	reSignal      = regexp.MustCompile(`crashed by signal: (\d+)`)
	reFrame       = regexp.MustCompile(`\(([A-Za-z_][A-Za-z0-9_]*)\+0x[0-9a-f]+\)`)
	reModFrame    = regexp.MustCompile(`redisraft\.so\((\+0x[0-9a-f]+)\)`)
)

// crashSignature reads a node's output; it returns "" when it holds no
// crash report.
func crashSignature(log string) (sig, msg string) {
	switch {
	case reGlibcAssert.MatchString(log):
		m := reGlibcAssert.FindStringSubmatch(log)
		return "assert: " + m[1] + ":" + m[2] + " " + m[3] + ": " + m[4], "assertion failed: " + m[0]
	case reRedisAssert.MatchString(log):
		m := reRedisAssert.FindStringSubmatch(log)
		return "assert: " + base(m[1]) + ":" + m[2] + " '" + m[3] + "'" + frames(log, 2), "assertion failed: " + m[0]
	case strings.Contains(log, "REDIS RAFT PANIC"):
		rest := log[strings.Index(log, "REDIS RAFT PANIC"):]
		lines := strings.Split(rest, "\n")
		text := ""
		for _, l := range lines[1:] {
			if t := strings.Trim(l, " !\r"); t != "" {
				text = t
				break
			}
		}
		text = logText(text)
		return "panic: " + schedule.BlankNumbers(text), "RedisRaft panic: " + text
	case reGuru.MatchString(log):
		m := reGuru.FindStringSubmatch(log)
		return "panic: " + schedule.BlankNumbers(m[1]) + " @ " + base(m[2]) + ":" + m[3], "Redis panic: " + m[0]
	case reSignal.MatchString(log):
		m := reSignal.FindStringSubmatch(log)
		return "signal " + m[1] + frames(log, 3), "crashed by signal " + m[1]
	}
	return "", ""
}

// frames names the top n frames of the crash report's backtrace that
// belong to Redis or the module (not the signal handler's, libc's or the
// report's own), " @ f < g < h".
func frames(log string, n int) string {
	i := strings.Index(log, "Backtrace:")
	if i < 0 {
		return ""
	}
	var top []string
	for _, line := range strings.Split(log[i:], "\n")[1:] {
		if strings.HasPrefix(line, "---") || strings.Contains(line, "REPORT") {
			break
		}
		if strings.Contains(line, "libc.so") || strings.Contains(line, "libpthread") || strings.Contains(line, "linux-vdso") {
			continue
		}
		var f string
		if m := reFrame.FindStringSubmatch(line); m != nil {
			f = m[1]
		} else if m := reModFrame.FindStringSubmatch(line); m != nil {
			f = "redisraft.so" + m[1]
		}
		switch {
		case f == "", strings.HasPrefix(f, "sigsegvHandler"), strings.HasPrefix(f, "logStackTrace"),
			strings.HasPrefix(f, "_serverAssert"), strings.HasPrefix(f, "RM__Assert"), f == "abort", f == "__assert_fail",
			strings.HasPrefix(f, "bugReport"), strings.HasPrefix(f, "printCrashReport"):
			continue
		}
		top = append(top, f)
		if len(top) == n {
			break
		}
	}
	if len(top) == 0 {
		return ""
	}
	return " @ " + strings.Join(top, " < ")
}

// logText strips the "pid:M dd Mon yyyy hh:mm:ss.mmm # <raft> " prefix of
// a Redis log line.
func logText(line string) string {
	if i := strings.Index(line, "<raft> "); i >= 0 {
		return line[i+len("<raft> "):]
	}
	for _, mark := range []string{" # ", " * ", " - ", " . "} {
		if i := strings.Index(line, mark); i >= 0 && i < 40 {
			return line[i+len(mark):]
		}
	}
	return line
}

func base(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// crashReport is what a bug report quotes of a dead node's log: from the
// start of Redis's crash report (or of the line before an assertion of
// the raft library), else its last lines, at most 8 KiB.
func crashReport(log string) string {
	const limit = 8 << 10
	start := -1
	for _, mark := range []string{"=== REDIS BUG REPORT START", "REDIS RAFT PANIC", "Guru Meditation", "crashed by signal", "Assertion `"} {
		if i := strings.Index(log, mark); i >= 0 && (start < 0 || i < start) {
			start = i
		}
	}
	if start >= 0 {
		start = strings.LastIndexByte(log[:start], '\n') + 1
		if len(log)-start > limit {
			return log[start:start+limit] + "\n[...]"
		}
		return log[start:]
	}
	if len(log) > limit {
		log = log[len(log)-limit:]
		if i := strings.IndexByte(log, '\n'); i >= 0 {
			log = log[i+1:]
		}
	}
	return log
}
