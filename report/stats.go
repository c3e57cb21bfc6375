package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	svg "github.com/ajstarks/svgo"

	"github.com/demi-project/demi/internal/paths"
	"github.com/demi-project/demi/minimize"
)

// Stats is what the report shows of `demi minimize --stats` output: the
// stages and the pace (best size against schedules executed).
type Stats struct {
	System    string                `json:"system"`
	Input     string                `json:"input"`
	Strategy  string                `json:"strategy"`
	Violation string                `json:"violation"`
	Stages    []minimize.StageStats `json:"stages"`
	Schedules int64                 `json:"schedules"`
	Seconds   float64               `json:"seconds"`
	Pace      []minimize.PacePoint  `json:"pace"`
}

// maxStatsBytes bounds a statistics file: minimize writes a few hundred
// kilobytes at most.
const maxStatsBytes = 64 << 20

// ReadStats reads a statistics file written by `demi minimize --stats`.
func ReadStats(path string) (*Stats, error) {
	b, err := paths.ReadInput(path, maxStatsBytes)
	if err != nil {
		return nil, err
	}
	var st Stats
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s is not minimize statistics: %w", path, err)
	}
	if len(st.Stages) == 0 {
		return nil, fmt.Errorf("%s has no stages: not written by demi minimize --stats?", path)
	}
	return &st, nil
}

// Geometry of the pace plot, in pixels.
const (
	pcWidth, pcHeight = 640, 260
	pcLeft, pcBottom  = 60, 40
	pcTop, pcRight    = 16, 20
)

// pacePlot draws the best trace size (deliveries + externals) against the
// schedules executed, one step per improvement, like the paper's Figure 2
// but with schedules on a log scale.
func (st *Stats) pacePlot() string {
	if len(st.Pace) == 0 {
		return ""
	}
	var b bytes.Buffer
	c := svg.New(&b)
	c.Start(pcWidth, pcHeight, `id="pace"`, `role="img"`, `aria-label="minimization pace"`)
	maxX, maxY := int64(1), 1
	for _, p := range st.Pace {
		maxX = max(maxX, p.Schedules)
		maxY = max(maxY, p.Deliveries+p.Externals)
	}
	maxX = max(maxX, st.Schedules)
	w, h := pcWidth-pcLeft-pcRight, pcHeight-pcTop-pcBottom
	// Schedules on a log scale: most of the reduction happens in the
	// first few hundred schedules of tens of thousands.
	lx := func(s int64) float64 { return math.Log10(float64(s) + 1) }
	px := func(s int64) int { return pcLeft + int(lx(s)/lx(maxX)*float64(w)) }
	py := func(n int) int { return pcTop + h - int(float64(n)/float64(maxY)*float64(h)) }
	c.Line(pcLeft, pcTop, pcLeft, pcTop+h, `class="axis"`)
	c.Line(pcLeft, pcTop+h, pcLeft+w, pcTop+h, `class="axis"`)
	c.Text(pcLeft-6, py(maxY)+4, fmt.Sprint(maxY), `class="tick"`, `text-anchor="end"`)
	c.Text(pcLeft-6, py(0)+4, "0", `class="tick"`, `text-anchor="end"`)
	c.Text(px(maxX), pcTop+h+16, fmt.Sprint(maxX), `class="tick"`, `text-anchor="end"`)
	c.Text(pcLeft, pcTop+h+16, "0", `class="tick"`)
	for t := int64(10); t < maxX; t *= 10 {
		c.Line(px(t), pcTop+h, px(t), pcTop+h+4, `class="axis"`)
		c.Text(px(t), pcTop+h+16, fmt.Sprint(t), `class="tick"`, `text-anchor="middle"`)
	}
	c.Text(pcLeft+w/2, pcHeight-6, "schedules executed (log scale)", `class="axis-label"`, `text-anchor="middle"`)
	c.Text(14, pcTop+h/2, "events", `class="axis-label"`, fmt.Sprintf(`transform="rotate(-90 14 %d)"`, pcTop+h/2), `text-anchor="middle"`)
	var xs, ys []int
	for i, p := range st.Pace {
		size := p.Deliveries + p.Externals
		if i > 0 {
			xs, ys = append(xs, px(p.Schedules)), append(ys, ys[len(ys)-1])
		}
		xs, ys = append(xs, px(p.Schedules)), append(ys, py(size))
	}
	xs, ys = append(xs, px(maxX)), append(ys, ys[len(ys)-1])
	c.Polyline(xs, ys, `class="pace-line"`)
	for _, p := range st.Pace {
		c.Circle(px(p.Schedules), py(p.Deliveries+p.Externals), 3, `class="pace-point"`)
	}
	c.End()
	out := b.String()
	if i := strings.Index(out, "<svg"); i > 0 {
		out = out[i:]
	}
	return out
}
