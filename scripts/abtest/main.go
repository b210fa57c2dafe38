// Command abtest compares two samples with the statistics of stats/ (the
// ones compare reports), for the experiment scripts: each line of its
// input is
//
//	LABEL<TAB>x1 x2 ...<TAB>y1 y2 ...
//
// and each line of its output is LABEL, then Mann-Whitney U of x against
// y, its two-sided p-value (exact for small samples), Vargha-Delaney
// A12(x, y) (the probability that a value of x exceeds one of y, ties
// counting half) and A12's magnitude, separated by tabs. A line it cannot
// read is an error that names it; nothing is printed for it.
//
//	go run ./scripts/abtest < pairs.tsv
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/stats"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	bad := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		out, err := test(line)
		if err != nil {
			fmt.Fprintf(os.Stderr, "abtest: line %d: %v\n", n, err)
			bad = true
			continue
		}
		fmt.Println(out)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "abtest: reading the input: %v\n", err)
		os.Exit(1)
	}
	if bad {
		os.Exit(1)
	}
}

// test is one line's comparison.
func test(line string) (string, error) {
	f := strings.Split(line, "\t")
	if len(f) != 3 {
		return "", fmt.Errorf("want LABEL, x values and y values separated by tabs, got %d fields", len(f))
	}
	x, err := sample(f[1])
	if err != nil {
		return "", fmt.Errorf("x: %v", err)
	}
	y, err := sample(f[2])
	if err != nil {
		return "", fmt.Errorf("y: %v", err)
	}
	u, p, err := stats.MannWhitneyU(x, y)
	if err != nil {
		return "", err
	}
	a := stats.A12(x, y)
	return fmt.Sprintf("%s\t%g\t%.4g\t%.3f\t%s", f[0], u, p, a, stats.A12Magnitude(a)), nil
}

func sample(s string) ([]float64, error) {
	var xs []float64
	for _, w := range strings.Fields(s) {
		v, err := strconv.ParseFloat(w, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", w)
		}
		xs = append(xs, v)
	}
	return xs, nil
}
