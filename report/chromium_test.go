package report

import (
	"bytes"
	"context"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The pages are checked in a real browser: every figure must decode and
// display under the pages' own Content-Security-Policy, and the page must
// render to something other than a blank screen.
//
// Needs Chromium (Debian: apt-get install -y chromium); skipped without it.

func chromiumPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	t.Skip("chromium not found on PATH or at /usr/bin/chromium; install it to check the HTML reports in a browser (Debian: apt-get install -y chromium)")
	return ""
}

// runChromium runs headless Chromium with its own profile directory and
// returns its standard output.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{
		"--headless=new", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage",
		"--no-first-run", "--hide-scrollbars", "--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "chromium %s\nstderr:\n%s", strings.Join(args, " "), stderr.String())
	return stdout.Bytes()
}

// renderCheck is appended to a copy of a page, whose policy is relaxed for
// this one inline script: after loading, it records how many images decoded.
const renderCheck = `<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0 && i.naturalHeight > 0; }).length;
  var d = document.createElement("div");
  d.id = "render-check";
  d.textContent = ok + "/" + imgs.length;
  document.body.appendChild(d);
});
</script>
`

var renderCheckResult = regexp.MustCompile(`<div id="render-check">(\d+)/(\d+)</div>`)

func checkInChromium(t *testing.T, bin, page string, images int) {
	dir := t.TempDir()

	// 1. Every <img> decoded. The page's policy allows no script, so the
	// copy allows inline scripts and nothing more.
	policy := "default-src &#39;none&#39;;"
	require.Contains(t, page, policy)
	checked := strings.Replace(page, policy, policy+" script-src &#39;unsafe-inline&#39;;", 1)
	checked = strings.Replace(checked, "</body>", renderCheck+"</body>", 1)
	checkedPath := filepath.Join(dir, "checked.html")
	require.NoError(t, os.WriteFile(checkedPath, []byte(checked), 0o644))
	dom := runChromium(t, bin, "--virtual-time-budget=5000", "--dump-dom", "file://"+checkedPath)
	m := renderCheckResult.FindSubmatch(dom)
	require.NotNil(t, m, "no render check in the DOM Chromium dumped:\n%.2000s", dom)
	ok, _ := strconv.Atoi(string(m[1]))
	total, _ := strconv.Atoi(string(m[2]))
	require.Equal(t, images, total, "images on the page")
	require.Equal(t, total, ok, "images that rendered")

	// 2. The page itself, as written, renders to a non-blank screenshot.
	pagePath := filepath.Join(dir, "page.html")
	require.NoError(t, os.WriteFile(pagePath, []byte(page), 0o644))
	shot := filepath.Join(dir, "screenshot.png")
	runChromium(t, bin, "--window-size=1200,3000", "--screenshot="+shot, "file://"+pagePath)
	b, err := os.ReadFile(shot)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, 1200, img.Bounds().Dx())
	require.Equal(t, 3000, img.Bounds().Dy())
	inked, colors := 0, map[color.RGBA]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colors[c] = true
			if int(c.R)+int(c.G)+int(c.B) < 3*230 {
				inked++
			}
		}
	}
	require.Greater(t, inked, 600*1500/100, "at least 1%% of the screenshot is not white")
	require.Greater(t, len(colors), 64, "the screenshot has text and figures, not a flat color")
}

func TestReportsRenderInChromium(t *testing.T) {
	bin := chromiumPath(t)
	t.Run("compare", func(t *testing.T) {
		page, _, figs := renderCompare(t)
		checkInChromium(t, bin, page, len(figs))
	})
	t.Run("campaign", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteCampaignHTML(&buf, sampleCampaign(t)))
		checkInChromium(t, bin, buf.String(), 1)
	})
}

// widthCheck records, after loading, how wide the document is and how
// wide the window.
const widthCheck = `<script>
window.addEventListener("load", function () {
  var d = document.createElement("div");
  d.id = "width-check";
  d.textContent = document.documentElement.scrollWidth + "/" + window.innerWidth;
  document.body.appendChild(d);
});
</script>
`

var widthCheckResult = regexp.MustCompile(`<div id="width-check">(\d+)/(\d+)</div>`)

// longTexts are the longest things the pages show: a divergence's
// signature with a whole IF/ELSE body, a message with TLA+ values, a
// panic's frames, an adapter configuration as one JSON line, and a
// path with no space to break at.
func longTexts() (signature, message string, settings [][2]string) {
	signature = `divergence: HandleAppendRequest: not enabled: IF (term < currentTerm[i]) THEN (/\ (~success) /\ (UNCHANGED vars)) ELSE (LET lastNew == (prevLogIndex + Len(entries)) cs == Conflicts(i, prevLogIndex, entries) newLog == (IF (cs = {}) THEN log[i] ELSE (SubSeq(log[i], 1, (prevLogIndex + ((SetMin(cs) - 1) - snapshotIndex[i]))) \o SubSeq(entries, SetMin(cs), Len(entries)))) IN (/\ ((currentTerm') = [currentTerm EXCEPT ![i] = term]) /\ ((role') = [role EXCEPT ![i] = "follower"]))) (raft.tla:290:8)`
	message = `n2 <- n3 MsgApp at step 96 (n2 deliver(5)) of the 149-step input: the model does not allow HandleAppendRequest(i=2, j=3, term=3, prevLogIndex=2, prevLogTerm=1, entries=<<[term |-> 3, value |-> ""]>>, commit=2, success=FALSE): not enabled, ((prevLogIndex + k) > L.base) => (L.ents[(prevLogIndex + (k - L.base))] = entries[k]) is false (raft.tla:273:40)`
	settings = [][2]string{
		{"corpus", "/tmp/" + strings.Repeat("a-very-long-directory-name-", 12) + "corpus"},
		{"adapter", `etcdraft {"nodes":3,"snapshot_every":3,"prevote":true,"checkquorum":true,"async_storage_writes":"mixed","max_uncommitted_size":64,"step_down_on_removal":true,"max_inflight_msgs":2,"max_size_per_msg":1,"election_tick":30,"heartbeat_tick":5,"read_only":"safe","inject":"send-before-persist"}`},
		{"failures", "910 execution(s) with a failure; by kind: 880 divergence, 40 safety, 12 panic (an execution that failed in two ways counts in both); 910 execution(s) diverged from the model"},
	}
	return signature, message, settings
}

// At a 1280-pixel window no page scrolls sideways, whatever it shows:
// long signatures, messages, JSON settings and paths wrap. The
// screenshots go to -samples when it is given, for a person to look at.
func TestPagesFitA1280PixelWindow(t *testing.T) {
	bin := chromiumPath(t)
	sig, msg, settings := longTexts()
	pages := map[string]string{}

	cp := sampleCampaign(t)
	cp.Settings = append(cp.Settings, settings...)
	cp.Bugs[0].Signature, cp.Bugs[0].Message = sig, msg
	cp.Bugs[0].Header = [][2]string{{"settings", strings.Repeat("--adapter etcdraft --strategy model --seed 1 ", 8)}, {"input", `minimized, 16 steps: {"version":1,"steps":[` + strings.Repeat(`{"process":0,"action":"timeout"},`, 16) + `]}`}}
	var buf bytes.Buffer
	require.NoError(t, WriteCampaignHTML(&buf, cp))
	pages["report"] = buf.String()

	bug := LiveBug{ID: "B8", Kind: "divergence", Signature: sig, Message: msg, Link: "/bug/B8", Hits: 1, FirstIteration: 484, LastIteration: 484,
		Reproducer: "16 steps, minimized from 150", Replay: "modelfuzz replay --corpus " + settings[0][1] + " B8",
		Input: `{"version": 1, "steps": []}`, Timeline: "step   0  n1      timeout\n", ModelView: "  DIVERGES at action 9 (step 15), " + msg + "\n"}
	live := &LivePage{Title: "modelfuzz campaign: etcdraft, strategy model", State: "Running since 15:00:00 (10m0s); page built at 15:10:00.",
		Rates: [][2]string{{"iterations", "5,000 this session, 20,000 over all sessions"}, {"bugs", "11 distinct: 7 divergence, 3 safety, 1 panic"}, settings[2]},
		Queue: [][2]string{{"queue", "12 inputs waiting to run"}}, Settings: settings[:2], Plots: cp.Plots, Bugs: []LiveBug{bug}}
	buf.Reset()
	require.NoError(t, WriteLiveHTML(&buf, live))
	pages["live"] = buf.String()
	buf.Reset()
	require.NoError(t, WriteLiveBugHTML(&buf, &bug))
	pages["live-bug"] = buf.String()

	for _, name := range []string{"report", "live", "live-bug"} {
		t.Run(name, func(t *testing.T) { checkWidth(t, bin, name, pages[name], 1280) })
	}
}

// checkWidth loads page in a window width pixels wide and fails when the
// document is wider than the window; it then takes a screenshot of the
// page as written, kept in -samples as NAME-WIDTH.png when given.
func checkWidth(t *testing.T, bin, name, page string, width int) {
	dir := t.TempDir()
	policy := "default-src &#39;none&#39;;"
	require.Contains(t, page, policy)
	checked := strings.Replace(page, policy, policy+" script-src &#39;unsafe-inline&#39;;", 1)
	checked = strings.Replace(checked, "</body>", widthCheck+"</body>", 1)
	// No reload while the page is measured.
	checked = regexp.MustCompile(`<meta http-equiv="refresh"[^>]*>`).ReplaceAllString(checked, "")
	checkedPath := filepath.Join(dir, "checked.html")
	require.NoError(t, os.WriteFile(checkedPath, []byte(checked), 0o644))
	size := "--window-size=" + strconv.Itoa(width) + ",1000"
	dom := runChromium(t, bin, size, "--virtual-time-budget=5000", "--dump-dom", "file://"+checkedPath)
	m := widthCheckResult.FindSubmatch(dom)
	require.NotNil(t, m, "no width check in the DOM Chromium dumped:\n%.2000s", dom)
	scroll, _ := strconv.Atoi(string(m[1]))
	inner, _ := strconv.Atoi(string(m[2]))
	require.Equal(t, width, inner, "the window's width")
	require.LessOrEqual(t, scroll, inner, "%s is %d pixels wide in a %d-pixel window: it scrolls sideways", name, scroll, inner)

	pagePath := filepath.Join(dir, "page.html")
	require.NoError(t, os.WriteFile(pagePath, []byte(page), 0o644))
	shot := filepath.Join(dir, "screenshot.png")
	if *samplesDir != "" {
		require.NoError(t, os.MkdirAll(*samplesDir, 0o755))
		shot = filepath.Join(*samplesDir, name+"-"+strconv.Itoa(width)+".png")
	}
	runChromium(t, bin, "--window-size="+strconv.Itoa(width)+",2400", "--screenshot="+shot, "file://"+pagePath)
	b, err := os.ReadFile(shot)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, width, img.Bounds().Dx())
}
