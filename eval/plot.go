package eval

import (
	"bytes"
	"fmt"
	"image/color"
	"strconv"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotPace draws the paper's Figure 2 for one bug: remaining deliveries and
// external events against schedules executed, as step lines (the size only
// changes when a smaller trace is found), and writes it as a PNG
// atomically.
func PlotPace(path, bug string, pace []minimize.PacePoint) error {
	if len(pace) == 0 {
		return fmt.Errorf("eval: no pace points to plot for %s", bug)
	}
	p := plot.New()
	p.Title.Text = "Minimization pace for " + bug
	p.X.Label.Text = "Number of schedules executed"
	p.Y.Label.Text = "Number of remaining events"
	p.Y.Min = 0
	p.X.Min = 0
	p.X.Tick.Marker = intTicks{}
	p.Y.Tick.Marker = intTicks{}
	p.Legend.Top = true
	dl := make(plotter.XYs, len(pace))
	ex := make(plotter.XYs, len(pace))
	for i, pt := range pace {
		dl[i] = plotter.XY{X: float64(pt.Schedules), Y: float64(pt.Deliveries)}
		ex[i] = plotter.XY{X: float64(pt.Schedules), Y: float64(pt.Externals)}
	}
	if err := addSteps(p, "Deliveries", dl, color.RGBA{R: 31, G: 119, B: 180, A: 255}, nil); err != nil {
		return err
	}
	if err := addSteps(p, "Externals", ex, color.RGBA{R: 214, G: 39, B: 40, A: 255}, []vg.Length{vg.Points(5), vg.Points(3)}); err != nil {
		return err
	}
	return savePNG(p, path)
}

// intTicks are gonum's default ticks labelled as integers.
type intTicks struct{}

func (intTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

func addSteps(p *plot.Plot, name string, xys plotter.XYs, c color.Color, dashes []vg.Length) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("eval: plot %s: %w", name, err)
	}
	l.StepStyle = plotter.PostStep
	l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: dashes}
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// PlotScaling draws minimization time against initial deliveries, one line
// per worker count, and writes it as a PNG atomically.
func PlotScaling(path, bug string, rows []ScalingRow) error {
	p := plot.New()
	p.Title.Text = "Scaling: " + bug
	p.X.Label.Text = "Deliveries in the failing trace"
	p.Y.Label.Text = "Schedules per second"
	p.Y.Min = 0
	p.X.Tick.Marker = intTicks{}
	p.Y.Tick.Marker = intTicks{}
	p.Legend.Top = true
	byW := map[int]plotter.XYs{}
	var ws []int
	for _, r := range rows {
		if r.Err != "" || r.Seconds <= 0 {
			continue
		}
		if _, ok := byW[r.Workers]; !ok {
			ws = append(ws, r.Workers)
		}
		byW[r.Workers] = append(byW[r.Workers], plotter.XY{X: float64(r.Initial.Deliveries), Y: r.SchedulesPerSecond()})
	}
	if len(ws) == 0 {
		return fmt.Errorf("eval: no scaling results to plot")
	}
	palette := []color.Color{color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255}, color.RGBA{R: 44, G: 160, B: 44, A: 255}}
	for i, w := range ws {
		lp, pts, err := plotter.NewLinePoints(byW[w])
		if err != nil {
			return fmt.Errorf("eval: plot scaling: %w", err)
		}
		c := palette[i%len(palette)]
		lp.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.5)}
		pts.Color = c
		p.Add(lp, pts)
		p.Legend.Add(fmt.Sprintf("-j %d", w), lp, pts)
	}
	return savePNG(p, path)
}

func savePNG(p *plot.Plot, path string) error {
	w, err := p.WriterTo(7*vg.Inch, 4*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("eval: render %s: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return fmt.Errorf("eval: render %s: %w", path, err)
	}
	return record.WriteFileAtomic(path, buf.Bytes())
}
