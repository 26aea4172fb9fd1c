// Package chart draws cachebench results with gonum.org/v1/plot and
// writes each chart twice, as SVG (for the web and diffs) and PNG (for
// viewers without SVG): hit ratio against capacity for hit-ratio sweeps,
// and lookup latency percentiles and throughput against GOMAXPROCS for
// `run` results.
package chart

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/cachebench/cachebench/internal/report"
)

// Size of every chart, and the PNG resolution: 9 x 6 inches at 120 dpi is
// 1080 x 720 pixels, readable on a laptop screen and in a README.
const (
	width  = 9 * vg.Inch
	height = 6 * vg.Inch
	dpi    = 120
)

// palette holds ten colours that stay apart from each other (the Tableau
// 10 set); the reference curve (OPT) is drawn black and dashed.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255},
}

// Series is one line of a line chart.
type Series struct {
	Name string
	X, Y []float64
	// Reference draws the series black and dashed, without markers.
	Reference bool
	// Style picks the colour and marker; give one adapter the same Style
	// in every chart so that it looks the same in all of them.
	Style int
}

// Lines is a line chart.
type Lines struct {
	Title, XLabel, YLabel string
	// LogX puts the x axis on a log scale. Either way ticks sit at the
	// data's x values.
	LogX bool
	// LogY puts the y axis on a log scale, with 1-2-5 ticks (latency).
	LogY bool
	// DenseX labels the x axis with the default ticks instead of one
	// per data point (a time series of many intervals).
	DenseX bool
	// YFromZero starts the y axis at 0 (throughput).
	YFromZero bool
	Series    []Series
	// YMin and YMax fix the y range when YMax > YMin.
	YMin, YMax float64
}

// ErrNoPoints is wrapped by Plot's error for a chart with no point to
// draw; a caller may skip the chart, saying so.
var ErrNoPoints = errors.New("no point to draw")

// Plot builds the chart. A chart with no point, or an x of 0 or less on a
// log scale (which gonum's log scale panics on), is an error.
func (l Lines) Plot() (*plot.Plot, error) {
	points := 0
	for _, s := range l.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("chart %q, series %q: %d x values, %d y values", l.Title, s.Name, len(s.X), len(s.Y))
		}
		for _, x := range s.X {
			if l.LogX && !(x > 0) {
				return nil, fmt.Errorf("chart %q, series %q: x %v on a log scale: must be above 0", l.Title, s.Name, x)
			}
		}
		points += len(s.X)
	}
	if points == 0 {
		return nil, fmt.Errorf("chart %q: %w", l.Title, ErrNoPoints)
	}
	p := newPlot(l.Title, l.XLabel, l.YLabel)
	ticks := map[float64]bool{}
	for _, s := range l.Series {
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
			ticks[s.X[j]] = true
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("chart %q, series %q: %w", l.Title, s.Name, err)
		}
		line.Width = vg.Points(2)
		if s.Reference {
			line.Color = color.Black
			line.Dashes = []vg.Length{vg.Points(8), vg.Points(5)}
			points.GlyphStyle.Radius = 0
		} else {
			c := palette[s.Style%len(palette)]
			line.Color, points.Color = c, c
			points.Shape = plotutil.Shape(s.Style)
			points.Radius = vg.Points(4)
		}
		p.Add(line, points)
		p.Legend.Add(s.Name, line, points)
	}
	if l.LogX {
		p.X.Scale = plot.LogScale{}
	}
	if !l.DenseX {
		p.X.Tick.Marker = constTicks(ticks)
	}
	if l.LogY {
		p.Y.Scale = plot.LogScale{}
		if t := logYTicks(l.Series); t != nil {
			p.Y.Tick.Marker = t
		}
	}
	if l.YFromZero {
		p.Y.Min = 0
	}
	if l.YMax > l.YMin {
		p.Y.Min, p.Y.Max = l.YMin, l.YMax
		var yt plot.ConstantTicks
		for i := 0; i <= 10; i++ {
			v := l.YMin + float64(i)*(l.YMax-l.YMin)/10
			yt = append(yt, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 4, 64)})
		}
		p.Y.Tick.Marker = yt
	}
	return p, nil
}

// styles gives every name its Style: its rank in sorted order.
func styles(names []string) map[string]int {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	out := make(map[string]int, len(sorted))
	for i, n := range sorted {
		out[n] = i
	}
	return out
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(16)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(13)
		a.Tick.Label.Font.Size = vg.Points(11)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(13)
	p.Legend.Padding = vg.Points(3)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.YOffs = -vg.Points(30)
	p.Add(plotter.NewGrid())
	return p
}

// constTicks labels exactly the given values (log axes otherwise label
// only powers of ten), in increasing order, so that the same values draw
// the same file whatever the map's iteration order.
func constTicks(vals map[float64]bool) plot.ConstantTicks {
	var t plot.ConstantTicks
	for v := range vals {
		t = append(t, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 2, 64)})
	}
	sort.Slice(t, func(i, j int) bool { return t[i].Value < t[j].Value })
	return t
}

// legendWidth is the column right of the plot that holds the legend, so
// that no line is ever hidden behind it.
const legendWidth = 2 * vg.Inch

// render draws p with its legend in a column on the right.
func render(p *plot.Plot, c draw.Canvas) {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	p.Draw(draw.Crop(c, 0, -legendWidth, 0, 0))
	leg.Draw(draw.Crop(c, width-legendWidth, 0, 0, 0))
}

// Save writes p to base+".svg" and base+".png", each atomically.
func Save(p *plot.Plot, base string) ([]string, error) {
	svg := base + ".svg"
	err := report.WriteFileAtomic(svg, func(w io.Writer) error {
		c := vgsvg.New(width, height)
		render(p, draw.New(c))
		_, err := c.WriteTo(w)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write chart %s: %w", svg, err)
	}
	png := base + ".png"
	err = report.WriteFileAtomic(png, func(w io.Writer) error {
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
		render(p, draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write chart %s: %w", png, err)
	}
	return []string{svg, png}, nil
}
