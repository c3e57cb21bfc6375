package eval

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotCoverage draws the abstract states each mode covered against the
// runs made, one line per mode, for the curves of case name, and writes
// it as a PNG atomically.
func PlotCoverage(path, name string, curves []CoverageCurve) error {
	p := plot.New()
	p.Title.Text = "Abstract states covered: " + name
	p.X.Label.Text = "Runs"
	p.Y.Label.Text = "Abstract states"
	p.X.Min, p.Y.Min = 0, 0
	p.X.Tick.Marker = intTicks{}
	p.Y.Tick.Marker = intTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	palette := []color.Color{
		color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255},
		color.RGBA{R: 44, G: 160, B: 44, A: 255}, color.RGBA{R: 148, G: 103, B: 189, A: 255},
	}
	dashes := [][]vg.Length{nil, {vg.Points(5), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}
	n := 0
	for _, c := range curves {
		if c.Case != name || len(c.States) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(c.States))
		for i, s := range c.States {
			xys[i] = plotter.XY{X: float64(i + 1), Y: float64(s)}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("eval: plot coverage of %s: %w", name, err)
		}
		l.LineStyle = draw.LineStyle{Color: palette[n%len(palette)], Width: vg.Points(1.5), Dashes: dashes[n%len(dashes)]}
		p.Add(l)
		p.Legend.Add(c.Mode, l)
		n++
	}
	if n == 0 {
		return fmt.Errorf("eval: no coverage curves to plot for %s", name)
	}
	return savePNG(p, path)
}
