package eval

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/cfg"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

// update rewrites the expected outputs of the data-driven tests:
// go test ./tlc/eval/ -run TestEvalScripts -update. Review the diff: the
// expectations were derived by hand from TLC's semantics.
var update = flag.Bool("update", false, "rewrite the expected outputs in testdata/")

// evalHeader is the start of every test module; the body begins on line 3,
// so positions in expected errors are stable.
const evalHeader = "---- MODULE T ----\nEXTENDS Integers, Sequences, FiniteSets, TLC\n"

// buildModule parses src as file T.tla with cfg text cfgSrc and builds it.
func buildModule(src, cfgSrc string) (*Model, error) {
	mods, err := syntax.ParseSource("T.tla", []byte(src))
	if err != nil {
		return nil, err
	}
	ld := syntax.NewLoader()
	ld.Add(mods...)
	conf, err := cfg.Parse("T.cfg", []byte(cfgSrc))
	if err != nil {
		return nil, &ConfigError{err}
	}
	return Build(ld, syntax.MainModule("T.tla", mods), conf)
}

// evalBody builds a module whose body is body and evaluates its definition
// Expr. A body without a line "Expr ==" is an expression: it becomes
// "Expr == body". Lines of the form "\* cfg: TEXT" are the cfg file. The
// result is the value, or the error, as one line; anything printed (Print,
// PrintT) comes first, one "print:" line each.
func evalBody(body string) string {
	var cfgLines []string
	hasExpr := false
	for _, l := range strings.Split(body, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(l), `\* cfg:`); ok {
			cfgLines = append(cfgLines, strings.TrimSpace(c))
		}
		if strings.HasPrefix(l, "Expr ==") {
			hasExpr = true
		}
	}
	if !hasExpr {
		body = "Expr == " + body
	}
	src := evalHeader + body + "\n====\n"
	m, err := buildModule(src, strings.Join(cfgLines, "\n"))
	if err != nil {
		return describeError(err)
	}
	var out bytes.Buffer
	m.Out = &out
	res := evalExpr(m)
	var sb strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if l != "" {
			sb.WriteString("print: " + l + "\n")
		}
	}
	sb.WriteString(res)
	return sb.String()
}

func evalExpr(m *Model) string {
	n, _, _, err := m.compileIn(m.root, &syntax.Ident{Pos: syntax.Pos{File: "T.tla"}, Name: "Expr"}, nil)
	if err != nil {
		// Definitions compile when first used; a compile error is a
		// load error, as it would be from Build.
		return describeError(&LoadError{err})
	}
	c := m.newCtx()
	c.level = 1
	v, err := n.eval(c, nil)
	if err != nil {
		return describeError(err)
	}
	return v.String()
}

// describeError names the kind of a failure and gives its one-line message.
func describeError(err error) string {
	var le *LoadError
	var ce *ConfigError
	var af *AssumeFailure
	var se *syntax.Error
	kind := "error"
	switch {
	case errors.As(err, &af):
		kind = "assume failure"
	case errors.As(err, &ce):
		kind = "config error"
	case errors.As(err, &se):
		kind = "parse error"
	case errors.As(err, &le):
		kind = "load error"
	}
	return kind + ": " + err.Error()
}

// scriptCase is one case of a data-driven file:
//
//	# comment
//	eval
//	<module body or expression, any number of lines>
//	----
//	<expected output>
//	<blank line>
type scriptCase struct {
	line     int
	cmd      string
	input    string
	expected string
}

func readScript(t *testing.T, path string) []scriptCase {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var cases []scriptCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	lineNo := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		lineNo++
		return sc.Text(), true
	}
	for {
		l, ok := next()
		if !ok {
			break
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := scriptCase{line: lineNo, cmd: strings.TrimSpace(l)}
		var in []string
		for {
			l, ok = next()
			if !ok {
				t.Fatalf("%s:%d: case without ----", path, c.line)
			}
			if l == "----" {
				break
			}
			in = append(in, l)
		}
		c.input = strings.Join(in, "\n")
		var exp []string
		for {
			l, ok = next()
			if !ok || l == "" {
				break
			}
			exp = append(exp, l)
		}
		c.expected = strings.Join(exp, "\n")
		cases = append(cases, c)
	}
	return cases
}

func writeScript(path string, cases []scriptCase, results []string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// Keep the comments and inputs; replace each expected block.
	lines := strings.Split(string(data), "\n")
	var out []string
	ci := 0
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if ci < len(cases) && i+1 == cases[ci].line {
			for i++; i < len(lines) && lines[i] != "----"; i++ {
				out = append(out, lines[i])
			}
			out = append(out, "----", results[ci])
			for i++; i < len(lines) && lines[i] != ""; i++ {
			}
			if i < len(lines) {
				out = append(out, "")
			}
			ci++
		}
	}
	return os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644)
}

func runScript(t *testing.T, path string, run func(cmd, input string) string) {
	cases := readScript(t, path)
	require.NotEmpty(t, cases)
	results := make([]string, len(cases))
	for i, c := range cases {
		results[i] = run(c.cmd, c.input)
		if !*update && results[i] != c.expected {
			t.Errorf("%s:%d: %s\n%s\n got: %s\nwant: %s", path, c.line, c.cmd, c.input, results[i], c.expected)
		}
	}
	if *update {
		require.NoError(t, writeScript(path, cases, results))
	}
}

// TestEvalScripts runs testdata/*.txt: each case evaluates an expression
// (or the Expr of a module body) and compares the value or error with the
// expected line.
func TestEvalScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			runScript(t, f, func(cmd, input string) string {
				switch cmd {
				case "eval":
					return evalBody(input)
				}
				return fmt.Sprintf("unknown command %q", cmd)
			})
		})
	}
}
