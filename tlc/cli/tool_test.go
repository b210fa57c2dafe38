package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolMessage is one message of TLC's -tool mode.
type toolMessage struct {
	code, class int
	text        string
}

var (
	startMsg = regexp.MustCompile(`^@!@!@STARTMSG (\d+):(\d+) @!@!@$`)
	endMsg   = regexp.MustCompile(`^@!@!@ENDMSG (\d+) @!@!@$`)
)

// parseToolOutput reads output in the format TLC documents for -tool
// (tlc2.output.MP): each message is a line "@!@!@STARTMSG code:class
// @!@!@", its text, and a line "@!@!@ENDMSG code @!@!@" with the same
// code. strict: nothing may stand outside a message (TLC's SANY prints its
// "Parsing file" lines there; the engine does not).
func parseToolOutput(out string, strict bool) ([]toolMessage, error) {
	var msgs []toolMessage
	var cur *toolMessage
	var text []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if m := startMsg.FindStringSubmatch(l); m != nil {
			if cur != nil {
				return nil, fmt.Errorf("line %d: message %d not ended before another starts", n, cur.code)
			}
			cur = &toolMessage{}
			fmt.Sscan(m[1], &cur.code)
			fmt.Sscan(m[2], &cur.class)
			text = nil
			continue
		}
		if m := endMsg.FindStringSubmatch(l); m != nil {
			var code int
			fmt.Sscan(m[1], &code)
			if cur == nil || code != cur.code {
				return nil, fmt.Errorf("line %d: ENDMSG %d does not end the message open", n, code)
			}
			cur.text = strings.Join(text, "\n")
			msgs = append(msgs, *cur)
			cur = nil
			continue
		}
		if cur == nil {
			if strict && l != "" {
				return nil, fmt.Errorf("line %d: text outside a message: %q", n, l)
			}
			continue
		}
		text = append(text, l)
	}
	if cur != nil {
		return nil, fmt.Errorf("message %d not ended", cur.code)
	}
	return msgs, nil
}

func codes(msgs []toolMessage) string {
	var b []string
	for _, m := range msgs {
		b = append(b, fmt.Sprintf("%d:%d", m.code, m.class))
	}
	return strings.Join(b, " ")
}

// toolCase is a spec and the codes the real TLC (tla2tools.jar at cc6b616)
// printed for it with -tool -workers 1.
type toolCase struct {
	dir, spec, cfg string
	exit           int
	tlc            string
}

var toolCases = []toolCase{
	{tlcData, "Commit", "Commit.cfg", 12, // an invariant violated
		"2262:0 2187:0 2220:0 2219:0 2185:0 2189:0 2190:0 2110:1 2121:1 2217:4 2217:4 2217:4 2217:4 2200:0 2199:0 2194:0 2186:0"},
	{tlcData, "Commit", "CommitAll.cfg", 0, // no error
		"2262:0 2187:0 2220:0 2219:0 2185:0 2189:0 2190:0 2193:0 2200:0 2199:0 2194:0 2268:0 2186:0"},
	{tlcData, "Commit", "CommitDeadlock.cfg", 11, // a deadlock
		"2262:0 2187:0 2220:0 2219:0 2185:0 2189:0 2190:0 2114:1 2121:1 2217:4 2217:4 2217:4 2200:0 2199:0 2194:0 2186:0"},
	{tlcData, "InitInv", "InitInv.cfg", 12, // an invariant violated by an initial state: no trace, no counts
		"2262:0 2187:0 2220:0 2219:0 2185:0 2189:0 2107:1 2186:0"},
	{tlcData, "NoSpec", "NoSpec.cfg", 13, // a stuttering counterexample without SPECIFICATION
		"2262:0 2187:0 2220:0 2219:0 2185:0 2212:0 2189:0 2190:0 2200:0 2192:0 2116:1 2264:1 2217:4 2218:4 2257:3 2267:0 2200:0 2199:0 2194:0 2186:0"},
	{"../check/testdata", "RefParLoose", "RefParLoose.cfg", 13, // a refinement's fairness violated
		"2262:0 2187:0 2220:0 2219:0 2185:0 2212:0 2189:0 2190:0 2200:0 2192:0 2116:1 2264:1 2217:4 2217:4 2217:4 2218:4 2259:3 2267:0 2200:0 2199:0 2194:0 2186:0"},
	{tlcData, "Loop", "Loop.cfg", 13, // a lasso: back to state 4
		"2262:0 2187:0 2220:0 2219:0 2185:0 2212:0 2189:0 2190:0 2200:0 2192:0 2116:1 2264:1 2217:4 2217:4 2217:4 2217:4 2217:4 2217:4 2122:4 2267:0 2200:0 2199:0 2194:0 2186:0"},
	{tlcData, "Stay", "Stay.cfg", 12, // a temporal property violated by a finite behaviour, during the search
		"2262:0 2187:0 2220:0 2219:0 2185:0 2212:0 2189:0 2190:0 2116:1 2264:1 2217:4 2217:4 2217:4 2217:4 2200:0 2199:0 2194:0 2186:0"},
	{tlcData, "LiveOK", "LiveOK.cfg", 0, // temporal properties that hold, in three branches
		"2262:0 2187:0 2220:0 2219:0 2185:0 2212:0 2189:0 2190:0 2200:0 2192:0 2267:0 2193:0 2200:0 2199:0 2194:0 2268:0 2186:0"},
}

// tlcLiveTexts are the texts of the liveness phase's messages the real
// TLC printed for LiveOK with -tool -workers 1, dates cut.
var tlcLiveTexts = map[int]string{
	2212: "Implied-temporal checking--satisfiability problem has 3 branches.",
	2192: "Checking 3 branches of temporal properties for the complete state space with 9 total distinct states at (",
	2267: "Finished checking temporal properties in 00s at ",
}

// TestToolMode checks -tool output against TLC's documented format and
// the sequence of message codes the real TLC prints for the same spec.
func TestToolMode(t *testing.T) {
	for _, c := range toolCases {
		t.Run(c.cfg, func(t *testing.T) {
			res := tlcIn(t, c.dir, "tlc", "check", "-tool", "-workers", "1", "-noGenerateSpecTE", "-config", c.cfg, c.spec)
			require.Equal(t, c.exit, res.code, res.stdout+res.stderr)
			msgs, err := parseToolOutput(res.stdout, true)
			require.NoError(t, err, res.stdout)
			assert.Equal(t, c.tlc, codes(msgs))
			for _, m := range msgs {
				switch m.code {
				case 2110:
					assert.Equal(t, "Invariant NotDone is violated.", m.text, "no \"Error: \" in -tool mode")
				case 2259:
					assert.Equal(t, "The stuttering counterexample above may be caused by the absence of a fairness constraint in the "+
						"behavior specification LooseSpec defined at line 5, col 1 to line 5, col 34 of module RefParLoose. To rule out such "+
						"counterexamples, conjoin a suitable fairness constraint to LooseSpec (compare Chapter 8, page 87ff of Specifying "+
						"Systems at https://lamport.azurewebsites.net/tla/book.html).", m.text)
				case 2107:
					assert.Equal(t, "Invariant Inv is violated by the initial state:\n/\\ x = 0\n/\\ y = {1, 2}\n", m.text)
				case 2217:
					assert.Regexp(t, `^\d+: <`, m.text, "a state is numbered without \"State \"")
				case 2199:
					assert.Regexp(t, `^\d+ states generated, \d+ distinct states found, \d+ states left on queue\.$`, m.text)
				case 2186:
					assert.Regexp(t, `^Finished in \d+ms at \(`, m.text)
				case 2212, 2192, 2267:
					if c.spec == "LiveOK" {
						assert.Equal(t, tlcLiveTexts[m.code], cutDate(m.text))
					}
				}
			}
		})
	}
	// A spec TLC's front end rejects: its error under TLC's code.
	dir := writeCase(t, illFormedSpecs[1])
	res := tlcIn(t, dir, "tlc", "check", "-tool", "Dup")
	require.Equal(t, 150, res.code)
	msgs, err := parseToolOutput(res.stdout, true)
	require.NoError(t, err, res.stdout)
	assert.Equal(t, "2262:0 2187:0 2220:0 3002:1 2186:0", codes(msgs))
	assert.Contains(t, msgs[3].text, "Operator Init already defined or declared.")
}

// withoutPeriodicCheck drops the progress report TLC prints before it
// checks the temporal properties on the complete graph: on a loaded
// machine TLC may check the graph found so far during the search instead
// ("for the current state space"), find the violation there, and print
// no such report.
func withoutPeriodicCheck(seq string) string {
	return strings.ReplaceAll(seq, "2200:0 2192:0", "2192:0")
}

// cutDate cuts a message's text at its date (2026-11-27 21:13:15).
func cutDate(text string) string {
	if loc := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`).FindStringIndex(text); loc != nil {
		return text[:loc[0]]
	}
	return text
}

// TestToolModeAgainstTLC runs the cases through the real TLC, when it is
// beside the repository, to keep the recorded sequences true.
func TestToolModeAgainstTLC(t *testing.T) {
	jar := realTLC(t)
	for _, c := range toolCases {
		t.Run(c.cfg, func(t *testing.T) {
			meta := t.TempDir()
			cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-tool", "-workers", "1", "-metadir", meta,
				"-noGenerateSpecTE", "-config", c.cfg, c.spec+".tla")
			cmd.Dir = c.dir
			out, _ := cmd.CombinedOutput()
			require.Equal(t, c.exit, cmd.ProcessState.ExitCode(), string(out))
			msgs, err := parseToolOutput(string(out), false)
			require.NoError(t, err)
			assert.Equal(t, withoutPeriodicCheck(c.tlc), withoutPeriodicCheck(codes(msgs)))
			for _, m := range msgs {
				if want, ok := tlcLiveTexts[m.code]; ok && c.spec == "LiveOK" {
					assert.Equal(t, want, cutDate(m.text))
				}
			}
		})
	}
}

// TestTraceExplorerSpec checks that an error trace gets TLC's
// trace-explorer spec beside the spec, that checking it reproduces the
// violation with the same states (and with the real TLC when it is here),
// and that -noGenerateSpecTE writes none.
func TestTraceExplorerSpec(t *testing.T) {
	for _, c := range []struct {
		cfg, verdict string
		code         int
	}{
		{"Commit.cfg", "Error: Invariant NotDone is violated.", 12},
		{"CommitDeadlock.cfg", "Error: Deadlock reached.", 11},
	} {
		t.Run(c.cfg, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"Commit.tla", c.cfg} {
				b, err := os.ReadFile(filepath.Join(tlcData, f))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
			}
			res := tlcIn(t, dir, "tlc", "check", "-workers", "1", "-noGenerateSpecTE", "-config", c.cfg, "Commit")
			require.Equal(t, c.code, res.code)
			assert.NotContains(t, res.stdout, "Trace exploration spec path")
			left, _ := filepath.Glob(filepath.Join(dir, "*_TTrace_*"))
			assert.Empty(t, left, "-noGenerateSpecTE")

			res = tlcIn(t, dir, "tlc", "check", "-workers", "1", "-teSpecOutDir", dir, "-config", c.cfg, "Commit")
			require.Equal(t, c.code, res.code)
			m := regexp.MustCompile(`(?m)^Trace exploration spec path: (.*Commit_TTrace_\d+\.tla)$`).FindStringSubmatch(res.stdout)
			require.NotNil(t, m, res.stdout)
			te := filepath.Base(m[1])
			_, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(te, ".tla")+".cfg"))
			require.NoError(t, err, "the cfg beside it")

			again := tlcIn(t, dir, "tlc", "check", "-workers", "1", "-noGenerateSpecTE", te)
			require.Equal(t, c.code, again.code, again.stdout+again.stderr)
			assert.Contains(t, again.stdout, c.verdict)
			assert.Equal(t, traceValues(res.stdout), traceValues(again.stdout), "the same states")
			assert.Contains(t, again.stdout, "State 2: <_TENext line ", "the step is the trace's own")

			jar, _ := filepath.Abs("../../../shared/tools/tlc/tla2tools.jar")
			if _, err := os.Stat(jar); err != nil || testing.Short() {
				return
			}
			if _, err := exec.LookPath("java"); err != nil {
				return
			}
			cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-metadir", t.TempDir(),
				"-noGenerateSpecTE", "-config", strings.TrimSuffix(te, ".tla")+".cfg", te)
			cmd.Dir = dir
			out, _ := cmd.CombinedOutput()
			require.Equal(t, c.code, cmd.ProcessState.ExitCode(), string(out))
			assert.Equal(t, traceValues(res.stdout), traceValues(string(out)), "the real TLC replays the same states")
		})
	}
}

// traceValues is an error trace's variable lines, in order.
func traceValues(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "/\\ ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestStutteringWarning checks TLC's warning after a stuttering
// counterexample of a spec without fairness: once, with how to silence
// it, and none with -nowarning or when the spec has fairness.
func TestStutteringWarning(t *testing.T) {
	const warn = "State 4: Stuttering\nWarning: The stuttering counterexample above may be caused by the absence of a fairness constraint " +
		"in the behavior specification LooseSpec defined at line 5, col 1 to line 5, col 34 of module RefParLoose."
	const silence = "book.html).\n(Use the -nowarning option to disable this warning.)\n"
	res := tlcIn(t, "../check/testdata", "tlc", "check", "-workers", "1", "-noGenerateSpecTE", "-config", "RefParLoose.cfg", "RefParLoose")
	require.Equal(t, 13, res.code, res.stdout+res.stderr)
	assert.Contains(t, res.stdout, warn)
	assert.Contains(t, res.stdout, silence)
	res = tlcIn(t, "../check/testdata", "tlc", "check", "-workers", "1", "-noGenerateSpecTE", "-nowarning", "-config", "RefParLoose.cfg", "RefParLoose")
	require.Equal(t, 13, res.code, res.stdout+res.stderr)
	assert.NotContains(t, res.stdout, "Warning:")
	// <>(x = 5) fails by stuttering, but its negation leaves fairness
	// nothing to contradict: TLC does not warn.
	res = tlcIn(t, "../check/testdata", "tlc", "check", "-workers", "1", "-noGenerateSpecTE", "-config", "PropNoFairness.cfg", "PropNoFairness")
	require.Equal(t, 13, res.code, res.stdout+res.stderr)
	assert.Contains(t, res.stdout, "Stuttering")
	assert.NotContains(t, res.stdout, "Warning:")
}

// TestTraceExplorerSpecLiveness checks the trace-explorer spec of a
// liveness counterexample, written as TLC writes it: checking it reports
// its property _TEProp violated by the same lasso (the same states, back
// to the same state) or the same stuttering, with modelfuzz tlc check and
// with the real TLC when it is here.
func TestTraceExplorerSpecLiveness(t *testing.T) {
	for _, c := range []struct{ spec, cfg, end string }{
		{"Loop", "Loop.cfg", "Back to state 4"},         // a lasso with a prefix
		{"NoSpec", "NoSpec.cfg", "State 2: Stuttering"}, // stuttering
	} {
		t.Run(c.spec, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{c.spec + ".tla", c.cfg} {
				b, err := os.ReadFile(filepath.Join(tlcData, f))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
			}
			res := tlcIn(t, dir, "tlc", "check", "-workers", "1", "-teSpecOutDir", dir, "-config", c.cfg, c.spec)
			require.Equal(t, 13, res.code, res.stdout+res.stderr)
			m := regexp.MustCompile(`(?m)^Trace exploration spec path: (.*` + c.spec + `_TTrace_\d+\.tla)$`).FindStringSubmatch(res.stdout)
			require.NotNil(t, m, res.stdout)
			te := filepath.Base(m[1])
			want := livenessTrace(res.stdout)
			require.Contains(t, want, c.end)

			again := tlcIn(t, dir, "tlc", "check", "-workers", "1", "-noGenerateSpecTE", te)
			require.Equal(t, 13, again.code, again.stdout+again.stderr)
			assert.Contains(t, again.stdout, "Error: Temporal property _TEProp was violated.\n")
			assert.Equal(t, want, livenessTrace(again.stdout), "the same counterexample")

			jar, _ := filepath.Abs("../../../shared/tools/tlc/tla2tools.jar")
			if _, err := os.Stat(jar); err != nil || testing.Short() {
				t.Skip("no real TLC beside the repository (../shared/tools/tlc/tla2tools.jar)")
			}
			if _, err := exec.LookPath("java"); err != nil {
				t.Skip("no java")
			}
			cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-metadir", t.TempDir(),
				"-noGenerateSpecTE", "-config", strings.TrimSuffix(te, ".tla")+".cfg", te)
			cmd.Dir = dir
			out, _ := cmd.CombinedOutput()
			require.Equal(t, 13, cmd.ProcessState.ExitCode(), string(out))
			assert.Contains(t, string(out), "Error: Temporal property _TEProp was violated.\n")
			assert.Equal(t, want, livenessTrace(string(out)), "the real TLC finds the same counterexample")
		})
	}
}

// livenessTrace is a liveness counterexample as printed, without the
// steps' action labels: "State N", its variables, and how it ends ("Back
// to state N" or "State N: Stuttering").
func livenessTrace(out string) string {
	var keep []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "Error: The following behavior constitutes a counter-example:"):
			in = true
		case !in:
		case strings.HasSuffix(l, ": Stuttering"):
			keep = append(keep, l)
		case strings.HasPrefix(l, "State "), strings.HasPrefix(l, "Back to state "):
			keep = append(keep, l[:strings.Index(l, ":")])
		case strings.HasPrefix(l, "/\\ "), regexp.MustCompile(`^\w+ = `).MatchString(l):
			keep = append(keep, l)
		case strings.HasPrefix(l, "Finished checking temporal properties"):
			in = false
		}
	}
	return strings.Join(keep, "\n")
}

// TestTraceExplorerSpecWhen checks when a trace-explorer spec is written,
// as TLC decides (tlc2.TLC): not in -tool mode, nor for a trace-explorer
// spec itself, unless -generateSpecTE.
func TestTraceExplorerSpecWhen(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"Commit.tla", "Commit.cfg"} {
		b, err := os.ReadFile(filepath.Join(tlcData, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	written := func() []string {
		files, _ := filepath.Glob(filepath.Join(dir, "*_TTrace_*.tla"))
		return files
	}
	res := tlcIn(t, dir, "tlc", "check", "-tool", "-workers", "1", "-teSpecOutDir", dir, "-config", "Commit.cfg", "Commit")
	require.Equal(t, 12, res.code, res.stdout+res.stderr)
	assert.Empty(t, written(), "none with -tool")
	assert.NotContains(t, res.stdout, "Trace exploration spec path")

	res = tlcIn(t, dir, "tlc", "check", "-tool", "-generateSpecTE", "nomonolith", "-workers", "1", "-teSpecOutDir", dir, "-config", "Commit.cfg", "Commit")
	require.Equal(t, 12, res.code, res.stdout+res.stderr)
	te := written()
	require.Len(t, te, 1, "-generateSpecTE writes one with -tool")
	msgs, err := parseToolOutput(res.stdout, true)
	require.NoError(t, err)
	last := msgs[len(msgs)-1]
	assert.Equal(t, 2501, last.code, "TLC's code for the path, after the last line")
	assert.Equal(t, "Trace exploration spec path: "+te[0], last.text)

	res = tlcIn(t, dir, "tlc", "check", "-workers", "1", "-teSpecOutDir", dir, filepath.Base(te[0]))
	require.Equal(t, 12, res.code, res.stdout+res.stderr)
	assert.Equal(t, te, written(), "none for a trace-explorer spec")
	assert.NotContains(t, res.stdout, "Trace exploration spec path")
}
