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

			if s != nil {
				assert.Equal(t, len(stats.Stages), count("#stages tbody tr"))
				assert.Equal(t, len(stats.Pace), count("#pace circle.pace-point"))
			} else {
				assert.Equal(t, 0, count("#stages"))
			}
		})
	}
}
