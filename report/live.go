package report

import (
	_ "embed"
	"html/template"
	"io"
)

// The live view of a running campaign (run --http): a status page in the
// manner of syzkaller's manager, rebuilt at each request and reloaded by
// the browser every few seconds (a meta refresh: the pages' policy allows
// no script), and a page per bug.

//go:embed live.html.tmpl
var liveTemplate string

var livePages = template.Must(template.Must(pages.Clone()).Parse(liveTemplate))

// LivePage is the status page of a running campaign.
type LivePage struct {
	Title string
	State string // one sentence: running since, last update
	// Rates, Queue and Settings are label, value pairs shown as tables.
	Rates, Queue, Settings [][2]string
	Plots                  []Figure
	Bugs                   []LiveBug
	// Known are the known disagreements of the model with the system the
	// campaign met: not bugs, listed apart.
	Known []LiveBug
}

// LiveBug is one bug of a running campaign: a row of the status page, and
// its own page.
type LiveBug struct {
	ID, Kind, Signature, Message  string
	Known                         string // the known disagreement a K record counts
	Link                          string // its page, relative to the status page
	Hits                          int64
	FirstIteration, LastIteration int64
	Reproducer                    string // "10 steps, minimized from 50"
	Replay                        string // the command that replays it
	Input                         string // the reproducer as JSON
	// Timeline and ModelView are the reproducer's replay (bug pages only);
	// TimelineNote says why there is no timeline.
	Timeline, ModelView, TimelineNote string
}

// LiveRefresh is how often the status page reloads, in seconds.
const LiveRefresh = 5

// WriteLiveHTML writes the status page.
func WriteLiveHTML(w io.Writer, p *LivePage) error {
	views, err := figureViews(p.Plots)
	if err != nil {
		return err
	}
	return livePages.ExecuteTemplate(w, "live", struct {
		CSP     string
		Refresh int
		P       *LivePage
		Figures []figureView
	}{ContentSecurityPolicy, LiveRefresh, p, views})
}

// WriteLiveBugHTML writes the page of one bug.
func WriteLiveBugHTML(w io.Writer, b *LiveBug) error {
	return livePages.ExecuteTemplate(w, "livebug", struct {
		CSP string
		B   *LiveBug
	}{ContentSecurityPolicy, b})
}
