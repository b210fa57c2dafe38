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
