package raftkv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Every event type raftkv reports to the fuzzer (POST /event) is one of
// the Raft event vocabulary (package schedule), which the process adapter
// orders and the raft mapper reads: raftkv speaks the interception API
// only, so the contract is checked here against its source, at every call
// of its event method.
func TestReportsTheRaftVocabulary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(x ast.Node) bool {
			call, ok := x.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "event" || len(call.Args) != 2 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			require.True(t, ok && lit.Kind == token.STRING, "%s: an event whose type is not a string literal: the test cannot check it", fset.Position(call.Pos()))
			typ, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			_, known := schedule.RaftEventArgs(typ)
			require.True(t, known, "%s: raftkv reports event type %q, which is not in the Raft event vocabulary (schedule/raft.go)", fset.Position(call.Pos()), typ)
			seen[typ] = true
			return true
		})
	}
	for _, typ := range []string{schedule.EvRole, schedule.EvCommit, schedule.EvApply, schedule.EvRestart, schedule.EvTimeout, schedule.EvRequest, schedule.TypeProposal} {
		require.True(t, seen[typ], "raftkv reports no %q event: the test no longer finds its reports", typ)
	}
}
