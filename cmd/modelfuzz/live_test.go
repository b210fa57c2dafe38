package main

import (
	"bufio"
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/internal/testutil"
)

// run --http: while the campaign runs, its status page shows the rates,
// the coverage plots and the bug it found, the bug's page its timeline,
// and the read-only commands work on its corpus; headless Chromium renders
// the page with every figure (a screenshot, kept where
// MODELFUZZ_LIVE_SCREENSHOT says). Without Chromium the browser part is
// skipped with a message (CI installs it, .ci/run).
func TestLiveView(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	lv := startLive(t, "run", "--http", "127.0.0.1:0", "--corpus", dir, "--adapter", "microbench",
		"--model", "microbench.tla", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--iterations", "1000000000", "--stats-every", "1s")
	cmd, exited, url, log := lv.cmd, lv.exited, lv.url, lv.log
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)

	get := func(path string) (int, string) {
		resp, err := http.Get(url + strings.TrimPrefix(path, "/"))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	var page string
	require.Eventually(t, func() bool {
		code, body := get("/")
		page = body
		return code == http.StatusOK && strings.Contains(body, `href="/bug/B1"`) && strings.Count(body, "<img ") == 2
	}, 3*time.Minute, 200*time.Millisecond, "the page never showed the bug and two plots:\n%s", log.String())
	for _, want := range []string{"<h2>Rates</h2>", "executions per second", " this session, ", "coverage over time",
		`alt="model coverage over time"`, "<h2>Queue</h2>", "inputs waiting to run", `<meta http-equiv="refresh" content="5">`,
		"panic: worker-N: flush processed right before the last execute"} {
		require.Contains(t, page, want)
	}
	code, bug := get("/bug/B1")
	require.Equal(t, http.StatusOK, code, bug)
	require.Contains(t, bug, "Timeline of the reproducer")
	require.Contains(t, bug, "the replay shows B1 again (same signature)")
	require.Contains(t, bug, "modelfuzz replay --corpus "+dir+" B1")
	code, _ = get("/bug/B9")
	require.Equal(t, http.StatusNotFound, code)

	// The read-only commands, on the corpus the campaign holds.
	res := modelfuzz(t, "bugs", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "B1  panic")
	require.Contains(t, res.stderr, "a running campaign (pid ")
	res = modelfuzz(t, "corpus", "list", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "bugs (1):")

	if bin := chromium(t); bin != "" {
		shot := filepath.Join(t.TempDir(), "live.png")
		runHeadless(t, bin, "--window-size=1100,1900", "--screenshot="+shot, url)
		f, err := os.Open(shot)
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err)
		require.Greater(t, distinctColors(img), 100, "the screenshot shows the plots, not a blank page")
		if keep := os.Getenv("MODELFUZZ_LIVE_SCREENSHOT"); keep != "" {
			b, _ := os.ReadFile(shot)
			require.NoError(t, os.WriteFile(keep, b, 0o644))
		}
		// Every figure decodes under the page's own policy: a copy of the
		// page that allows one inline script counts the images shown.
		_, page = get("/")
		policy := "default-src &#39;none&#39;;"
		require.Contains(t, page, policy)
		checked := strings.Replace(page, policy, policy+" script-src &#39;unsafe-inline&#39;;", 1)
		checked = strings.Replace(checked, `<meta http-equiv="refresh" content="5">`, "", 1)
		checked = strings.Replace(checked, "</body>", `<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var d = document.createElement("div"); d.id = "render-check";
  d.textContent = ok + "/" + imgs.length + " " + document.documentElement.scrollWidth + "/" + window.innerWidth;
  document.body.appendChild(d);
});
</script></body>`, 1)
		file := filepath.Join(t.TempDir(), "live.html")
		require.NoError(t, os.WriteFile(file, []byte(checked), 0o644))
		// ... and at 1280 pixels the page does not scroll sideways.
		dom := runHeadless(t, bin, "--window-size=1280,1900", "--virtual-time-budget=5000", "--dump-dom", "file://"+file)
		m := regexp.MustCompile(`<div id="render-check">(\d+/\d+) (\d+)/(\d+)</div>`).FindStringSubmatch(string(dom))
		require.NotNil(t, m, "no render check in the DOM:\n%.2000s", dom)
		require.Equal(t, "2/2", m[1], "figures shown")
		require.Equal(t, "1280", m[3], "the window's width")
		width, _ := strconv.Atoi(m[2])
		require.LessOrEqual(t, width, 1280, "the live page is wider than a 1280-pixel window")
	}

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case err := <-exited:
		lv.stopped = true
		require.NoError(t, err, log.String())
	case <-time.After(time.Minute):
		t.Fatalf("run did not stop after SIGINT:\n%s", log.String())
	}
}

// live is a "run --http" started by startLive.
type live struct {
	cmd     *exec.Cmd
	exited  chan error
	url     string
	log     *testutil.SyncBuffer
	stopped bool // set when the test saw it exit
}

// startLive starts modelfuzz with args (a run with --http) and waits for
// the line naming its live view; the process is killed at the end of the
// test unless the test stopped it.
func startLive(t *testing.T, args ...string) *live {
	t.Helper()
	lv := &live{cmd: exec.Command(binary, args...), exited: make(chan error, 1), log: &testutil.SyncBuffer{}}
	stderr, err := lv.cmd.StderrPipe()
	require.NoError(t, err)
	lv.cmd.Stdout = io.Discard
	require.NoError(t, lv.cmd.Start())
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			lv.log.Write([]byte(line + "\n"))
			if u, ok := strings.CutPrefix(line, "live view: "); ok {
				urls <- u
			}
		}
		lv.exited <- lv.cmd.Wait()
	}()
	t.Cleanup(func() {
		if !lv.stopped {
			lv.cmd.Process.Kill()
			<-lv.exited
		}
	})
	select {
	case lv.url = <-urls:
	case err := <-lv.exited:
		lv.stopped = true
		t.Fatalf("run exited before serving: %v\n%s", err, lv.log.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("no live view line:\n%s", lv.log.String())
	}
	return lv
}

// A resumed campaign's live page marks where it started again, before
// its new session stored a snapshot too.
func TestLiveViewMarksAResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	args := []string{"run", "--corpus", dir, "--adapter", "microbench", "--workers", "3", "--tasks", "5"}
	res := modelfuzz(t, append(args, "--iterations", "300")...)
	require.Equal(t, 0, res.code, res.stderr)
	lv := startLive(t, append(args, "--http", "127.0.0.1:0", "--iterations", "1000000000", "--stats-every", "1h")...)
	var page string
	require.Eventually(t, func() bool {
		resp, err := http.Get(lv.url)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		page = string(b)
		return strings.Contains(page, "<img ")
	}, 2*time.Minute, 200*time.Millisecond, "no plot on the page:\n%s", lv.log.String())
	require.Regexp(t, `The campaign was resumed at \d+\.\d seconds of fuzzing \(dashed vertical lines\)`, page)
}

// chromium finds headless Chromium, or skips the browser checks ("" ).
func chromium(t *testing.T) string {
	for _, p := range []string{"chromium", "/usr/bin/chromium", "chromium-browser"} {
		if bin, err := exec.LookPath(p); err == nil {
			return bin
		}
	}
	t.Log("chromium not found: the browser checks of the live view are skipped (Debian: apt-get install -y chromium; CI installs it)")
	return ""
}

func runHeadless(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless=new", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage",
		"--no-first-run", "--hide-scrollbars", "--user-data-dir=" + t.TempDir()}
	c := exec.CommandContext(ctx, bin, append(base, args...)...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	require.NoError(t, c.Run(), "chromium %s\n%s", strings.Join(args, " "), errb.String())
	return out.Bytes()
}

func distinctColors(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}] = true
		}
	}
	return len(seen)
}

// A bad --http address is refused in one line before anything starts.
func TestLiveViewBadAddress(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	oneLineError(t, modelfuzz(t, "run", "--http", "nonsense", "--corpus", dir, "--iterations", "1"),
		"--http nonsense: want HOST:PORT, such as 127.0.0.1:8080")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	oneLineError(t, modelfuzz(t, "run", "--http", ln.Addr().String(), "--corpus", dir, "--iterations", "1"),
		"--http "+ln.Addr().String()+": ")
	require.NoDirExists(t, dir, "nothing was created")
}
