package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// The plot's layout, in SVG user units.
const (
	plotWidth  = 960
	panelH     = 130
	panelGap   = 46
	marginL    = 80
	marginR    = 20
	marginTop  = 40
	plotBottom = 40
)

// writeSVG draws one panel per series against the run's minutes: the
// samples as a line, each fault as a thin vertical line, and the growth
// check's two medians (over the first and the last third after the
// warm-up) as short horizontal bars, with the limit the last may reach
// dashed. title heads the plot.
func writeSVG(w io.Writer, title string, ss []series, gs []growth, faults []faultRecord, warmupUntil, seconds float64) error {
	height := marginTop + len(ss)*(panelH+panelGap) + plotBottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotWidth, height, plotWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15">%s</text>`+"\n", marginL, html.EscapeString(title))
	seconds = math.Max(seconds, 1)
	innerW := float64(plotWidth - marginL - marginR)
	xOf := func(t float64) float64 { return float64(marginL) + innerW*t/seconds }
	for i, s := range ss {
		top := float64(marginTop + i*(panelH+panelGap) + 16)
		_, hi := bounds(s.Values)
		lo := 0.0 // from zero: a flat line looks flat
		var g growth
		for _, x := range gs {
			if x.Series == s.Name {
				g = x
			}
		}
		if g.Limit > hi {
			hi = g.Limit
		}
		hi = math.Max(hi*1.08, 1)
		yOf := func(v float64) float64 { return top + panelH - panelH*(v-lo)/(hi-lo) }
		verdict := "flat"
		if g.Grows {
			verdict = "GROWS"
		} else if g.Note != "" {
			verdict = "not judged"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-weight="bold">%s (%s): %s</text>`+"\n", marginL, top-6, html.EscapeString(s.Name), html.EscapeString(s.Unit), verdict)
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="none" stroke="#999"/>`+"\n", marginL, top, innerW, panelH)
		for _, v := range []float64{lo, (lo + hi) / 2, hi} {
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n", marginL-6, yOf(v)+4, tick(v))
		}
		for _, f := range faults {
			x := xOf(f.At)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1" opacity="0.6"><title>%s</title></line>`+"\n",
				x, top, x, top+panelH, faultColour(f.Kind), html.EscapeString(f.Kind+" "+f.Target))
		}
		var pts []string
		for j, v := range s.Values {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(s.Times[j]), yOf(v)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="#1f4e9c" stroke-width="1.2" points="%s"/>`+"\n", strings.Join(pts, " "))
		if g.Note == "" && len(s.Times) > 0 {
			n := len(s.Times)
			skip := warmup(s, warmupUntil)
			third := (n - skip) / 3
			first0, first1 := s.Times[skip], s.Times[skip+third-1]
			last0, last1 := s.Times[n-third], s.Times[n-1]
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#2a8c2a" stroke-width="3"/>`+"\n", xOf(first0), yOf(g.FirstMedian), xOf(first1), yOf(g.FirstMedian))
			colour := "#2a8c2a"
			if g.Grows {
				colour = "#c0392b"
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n", xOf(last0), yOf(g.LastMedian), xOf(last1), yOf(g.LastMedian), colour)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c0392b" stroke-dasharray="5,4"/>`+"\n", xOf(last0), yOf(g.Limit), xOf(last1), yOf(g.Limit))
		}
	}
	axisY := float64(marginTop + len(ss)*(panelH+panelGap) + 4)
	step := tickStep(seconds / 60)
	for m := 0.0; m <= seconds/60+1e-9; m += step {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%s</text>`+"\n", xOf(m*60), axisY, tick(m))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">minutes (vertical lines: faults; green bars: the medians of the first and last thirds after the warm-up; dashed: the limit of the last)</text>`+"\n", float64(marginL)+innerW/2, axisY+18)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// bounds returns the least and greatest of vs (0, 0 for none).
func bounds(vs []float64) (lo, hi float64) {
	if len(vs) == 0 {
		return 0, 0
	}
	lo, hi = vs[0], vs[0]
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// tick formats an axis label.
func tick(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// tickStep returns a round step for an axis of span units: about 6 ticks.
func tickStep(span float64) float64 {
	for _, s := range []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60} {
		if span/s <= 8 {
			return s
		}
	}
	return 120
}

// faultColour gives each kind of fault its colour.
func faultColour(kind string) string {
	switch kind {
	case faultFollowerKill:
		return "#e67e22"
	case faultLeaderKill:
		return "#c0392b"
	case faultDisconnect:
		return "#8e44ad"
	case faultSessionExpire:
		return "#16a085"
	}
	return "#7f8c8d"
}
