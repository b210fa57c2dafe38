package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// comparePage renders the compare page of a synthetic comparison with 4
// strategies, one of whose bug signatures is a script tag.
func renderCompare(t *testing.T) (string, *Comparison, []Figure) {
	t.Helper()
	c := syntheticComparison(4, 5, 10000)
	c.Strategies[0].Runs[0].Bugs = append(c.Strategies[0].Runs[0].Bugs, BugHit{Signature: `panic: <script>alert("x")</script>`, Kind: "crash", FirstIteration: 77})
	require.NoError(t, Analyze(c, "model"))
	figs, err := CompareFigures(c, DefaultWidth, DefaultHeight)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteCompareHTML(&buf, c, figs))
	return buf.String(), c, figs
}

var attrURL = regexp.MustCompile(`(?i)\b(src|href)\s*=\s*"([^"]*)"`)

// requireSelfContained checks that page loads nothing from elsewhere.
func requireSelfContained(t *testing.T, page string, images int) {
	t.Helper()
	require.NotContains(t, page, "http://")
	require.NotContains(t, page, "https://")
	require.NotContains(t, strings.ToLower(page), "<script")
	require.NotContains(t, strings.ToLower(page), "<link")
	urls := attrURL.FindAllStringSubmatch(page, -1)
	require.Len(t, urls, images)
	for _, u := range urls {
		require.Equal(t, "src", u[1])
		require.True(t, strings.HasPrefix(u[2], "data:image/png;base64,"), "%s=%.40q", u[1], u[2])
	}
	require.Contains(t, page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; img-src data:; style-src &#39;unsafe-inline&#39;">`)
}

func TestWriteCompareHTML(t *testing.T) {
	page, c, figs := renderCompare(t)
	require.Len(t, figs, 7, "coverage of model, traces, lines over iterations and over time, and the first bug")
	requireSelfContained(t, page, len(figs))
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
		require.True(t, strings.HasPrefix(string(f.SVG), "<?xml"), "%s has its SVG too", f.Name)
		require.Contains(t, string(f.SVG), "<svg ")
	}
	require.Equal(t, []string{"coverage-model.png", "coverage-model-time.png", "coverage-traces.png", "coverage-traces-time.png",
		"coverage-lines.png", "coverage-lines-time.png", "first-bug.png"}, names)
	for _, s := range c.Strategies {
		require.Regexp(t, `<td class="name"><span class="swatch" style="background: #[0-9a-f]{6}"></span>`+s.Name+`</td>`, page)
		require.Contains(t, page, "<h3>"+s.Name+"</h3>", "bugs of %s", s.Name)
	}
	for _, want := range []string{
		"<h2>Statistical tests</h2>", "<h3>final model</h3>", "<h3>final traces</h3>", "<h3>final lines</h3>", "<h3>first bug</h3>",
		"Mann-Whitney U", "A12 below 0.5 means that A tends to find the first bug sooner than B",
		"counts as 10,001 iterations", "model better (large effect)",
		`alt="Model coverage over iterations"`, `alt="Model coverage over fuzzing time"`, "<figcaption>",
	} {
		require.Contains(t, page, want)
	}
	require.Equal(t, len(c.Tests), strings.Count(page, "<tr><td>model</td>")+strings.Count(page, `<tr class="sig"><td>model</td>`))
	require.Contains(t, page, "panic: &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;")

	var again bytes.Buffer
	require.NoError(t, WriteCompareHTML(&again, c, figs))
	require.Equal(t, page, again.String(), "the page is deterministic")
}

func TestWriteCompareHTMLEmpty(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteCompareHTML(&buf, &Comparison{Adapter: "a", Model: "m", Strategies: []Strategy{{Name: "model"}}}, nil))
	page := buf.String()
	requireSelfContained(t, page, 0)
	require.Contains(t, page, "No statistical tests")
	require.Contains(t, page, "No figures.")
	require.Contains(t, page, "No bug found in 0 runs.")
}

func TestWriteHTMLRejectsNonPNG(t *testing.T) {
	bad := []Figure{{Title: "broken", PNG: []byte("GIF89a")}}
	err := WriteCompareHTML(&bytes.Buffer{}, &Comparison{}, bad)
	require.ErrorContains(t, err, `figure "broken" is not a PNG`)
	err = WriteCampaignHTML(&bytes.Buffer{}, &Campaign{Plots: bad})
	require.ErrorContains(t, err, `figure "broken" is not a PNG`)
}

func TestWriteCampaignHTML(t *testing.T) {
	cp := sampleCampaign(t)
	var buf bytes.Buffer
	require.NoError(t, WriteCampaignHTML(&buf, cp))
	page := buf.String()
	requireSelfContained(t, page, 1)
	for _, want := range []string{
		"<title>modelfuzz campaign: etcdraft / raft.tla, strategy model</title>",
		"<th>seed</th><td>7</td>",
		"<h3>B1: invariant</h3>", "<h3>B2: crash</h3>",
		"first 4,120, last 19,004", "9 steps (minimized from 48)",
		"<pre>1  deliver  n1 -&gt; n2  MsgApp{term:3 index:5}\n2  crash    n2\n3  restart  n2</pre>",
		"panic: &lt;script&gt;alert(1)&lt;/script&gt;", "panic &amp; &#34;quotes&#34;",
		`alt="Coverage over time"`,
	} {
		require.Contains(t, page, want)
	}

	buf.Reset()
	require.NoError(t, WriteCampaignHTML(&buf, &Campaign{Title: "empty"}))
	require.Contains(t, buf.String(), "No bug found.")
}
