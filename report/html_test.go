package report_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/internal/browsertest"
	"github.com/demi-project/demi/report"
)

// inked returns the fraction of a PNG's pixels that differ clearly from
// its top-left pixel (the background).
func inked(t *testing.T, b []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	bounds := img.Bounds()
	br, bg, bb, _ := img.At(bounds.Min.X, bounds.Min.Y).RGBA()
	far := func(a, b uint32) bool { return a > b+0x2000 || b > a+0x2000 }
	n := 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if far(r, br) || far(g, bg) || far(b, bb) {
				n++
			}
		}
	}
	return float64(n) / float64(bounds.Dx()*bounds.Dy())
}

// TestInChromium runs the checks that need a browser, in one headless
// Chromium (starting it takes seconds).
func TestInChromium(t *testing.T) {
	browsertest.Require(t, true)
	b := browsertest.New(t)
	t.Run("mermaid", func(t *testing.T) { mermaidParses(t, b) })
	t.Run("harness", func(t *testing.T) { harnessCatches(t, b) })
	t.Run("html", func(t *testing.T) { htmlReports(t, b) })
}

// harnessCatches makes sure the checks below can fail: a page that
// fetches, logs an error and draws nothing is caught on all three.
func harnessCatches(t *testing.T, b *browsertest.Browser) {
	page := filepath.Join(t.TempDir(), "bad.html")
	require.NoError(t, os.WriteFile(page, []byte(`<!doctype html><html><body>
<div id="diagram" style="width:300px;height:100px;background:#fff"></div>
<img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script></body></html>`), 0o644))
	ld, _ := b.LoadPage(t, page, "#diagram")
	assert.Contains(t, ld.Requests, "http://127.0.0.1:9/x.png")
	assert.Contains(t, ld.Errors, `console.error: "boom"`)
	assert.Less(t, inked(t, ld.Screenshot), 0.001, "an empty div is blank")
}

// htmlReports loads the report of every shipped minimized
// trace in headless Chromium: no console error, no request leaving the
// file, one line per actor, one arrow per delivery and per message never
// delivered, a screenshot of the diagram that is not blank, and a click
// on an arrow that shows its message.
func htmlReports(t *testing.T, b *browsertest.Browser) {
	stats, err := report.ReadStats("testdata/raft-45.stats.json")
	require.NoError(t, err)
	for _, bug := range shippedMin(t) {
		t.Run(bug, func(t *testing.T) {
			st := story(t, bug+".min.trace")
			var s *report.Stats
			if bug == "raft-45" {
				s = stats
			}
			path := filepath.Join(t.TempDir(), bug+".html")
			require.NoError(t, os.WriteFile(path, render(t, func(w *bytes.Buffer) error { return st.WriteHTML(w, s) }), 0o644))
			ld, page := b.LoadPage(t, path, "#spacetime")
			assert.Empty(t, ld.Requests, "the page fetches nothing")
			assert.Empty(t, ld.Errors, "no console error")
			assert.Greater(t, inked(t, ld.Screenshot), 0.02, "the diagram is drawn")

			count := func(sel string) int {
				n, err := browsertest.Eval[int](page, `document.querySelectorAll("`+sel+`").length`)
				require.NoError(t, err)
				return n
			}
			h := st.Trace.Header
			assert.Equal(t, len(st.Actors), count("#spacetime line.actor"), "one line per actor")
			assert.Equal(t, h.Deliveries, count("#spacetime g.msg.delivered, #spacetime g.msg.timer"), "one arrow per delivery")
			assert.Equal(t, st.Lost, count("#spacetime g.msg.lost"))
			assert.Equal(t, h.Deliveries, count("#spacetime text.msg-label"), "every arrow is labelled")
			if st.Lost > 0 {
				visible := func() int {
					n, err := browsertest.Eval[int](page, `[...document.querySelectorAll("#spacetime g.msg.lost")].filter(g => getComputedStyle(g).display != "none").length`)
					require.NoError(t, err)
					return n
				}
				assert.Zero(t, visible(), "messages never delivered are hidden by default")
				require.NoError(t, page.Click(`#show-lost`))
				assert.Equal(t, st.Lost, visible(), "the toggle shows them")
				require.NoError(t, page.Click(`#show-lost`))
			}
			assert.Equal(t, 1, count("#spacetime g.violation"))
			assert.Equal(t, len(st.Trace.Events), count("#events tbody tr"))
			assert.Positive(t, count("#spacetime rect.band"), "raft messages carry rounds")

			require.NoError(t, page.Click(`#spacetime g.msg.delivered`))
			detail, err := browsertest.Eval[string](page, `document.getElementById("detail").textContent`)
			require.NoError(t, err)
			title, err := browsertest.Eval[string](page, `document.querySelector("#spacetime g.msg.delivered title").textContent`)
			require.NoError(t, err)
			assert.Equal(t, title, detail)
			assert.Regexp(t, `^step \d+: (ext|raft-\d)→raft-\d \w+\{`, detail)
			assert.Equal(t, 1, count("#events tr.selected"), "the clicked delivery's row is highlighted")

			if bug == "raft-45" {
				labels, err := browsertest.Eval[[]string](page, `[...document.querySelectorAll("#spacetime text.msg-label")].map(e => e.textContent)`)
				require.NoError(t, err)
				assert.Equal(t, []string{"8 Bootstrap", "9 Bootstrap", "10 Bootstrap", "11 Bootstrap", "12 ElectionTimeout", "13 ElectionTimeout",
					"14 RequestVote", "15 RequestVote", "16 Vote", "17 RetryVotes", "18 Vote", "19 RequestVote", "20 Vote"}, labels)
				screenshotGolden(t, "raft-45.spacetime.png", ld.Screenshot)
			}
			if s != nil {
				open, err := browsertest.Eval[bool](page, `document.getElementById("stages-fold").open`)
				require.NoError(t, err)
				assert.False(t, open, "the stage table is folded")
				assert.Equal(t, len(stats.Stages), count("#stages tbody tr"))
				assert.Equal(t, len(stats.Pace), count("#pace circle.pace-point"))
			} else {
				assert.Equal(t, 0, count("#stages"))
			}
		})
	}
}

// screenshotGolden compares a screenshot with testdata/name (written by
// -update) within a tolerance: the same size, and at most 2% of the
// pixels differing by more than a faint shade (font rendering varies a
// little between machines).
func screenshotGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./report -update writes it (needs Chromium)")
	a, err := png.Decode(bytes.NewReader(want))
	require.NoError(t, err)
	b, err := png.Decode(bytes.NewReader(got))
	require.NoError(t, err)
	require.Equal(t, a.Bounds().Size(), b.Bounds().Size(), "the diagram's size changed")
	far := func(x, y uint32) bool { return x > y+0x3000 || y > x+0x3000 }
	differ := 0
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x-a.Bounds().Min.X+b.Bounds().Min.X, y-a.Bounds().Min.Y+b.Bounds().Min.Y).RGBA()
			if far(r1, r2) || far(g1, g2) || far(b1, b2) {
				differ++
			}
		}
	}
	frac := float64(differ) / float64(a.Bounds().Dx()*a.Bounds().Dy())
	assert.Less(t, frac, 0.02, "the screenshot differs from %s in %.1f%% of its pixels", path, 100*frac)
}
