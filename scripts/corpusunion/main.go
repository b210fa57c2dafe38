// Command corpusunion prints the union of the coverage of several
// campaigns' corpora, by measure: what independent workers reached
// together, against what the workers of one hub reached (hub-share.sh).
//
//	go run ./scripts/corpusunion DIR...
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/corpus"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: corpusunion DIR...")
		os.Exit(2)
	}
	union := map[string]map[uint64]bool{}
	for _, dir := range os.Args[1:] {
		st, err := corpus.Open(dir, corpus.Options{MustExist: true, ReadOnly: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, "corpusunion:", err)
			os.Exit(1)
		}
		snap, err := st.Load(0)
		st.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "corpusunion:", err)
			os.Exit(1)
		}
		for m, items := range snap.Coverage {
			if union[m] == nil {
				union[m] = map[uint64]bool{}
			}
			for _, x := range items {
				union[m][x] = true
			}
		}
	}
	var parts []string
	for m, set := range union {
		parts = append(parts, fmt.Sprintf("%s %d", m, len(set)))
	}
	slices.Sort(parts)
	fmt.Println(strings.Join(parts, " "))
}
