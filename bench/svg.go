package bench

import (
	"fmt"
	"math"
	"strings"
)

// Series is one line of a chart.
type Series struct {
	Name   string
	Color  string
	Dashed bool
	Points []int
}

// Panel is one chart: a title and its lines.
type Panel struct {
	Title  string
	Series []Series
}

// SVG draws panels side by side: x is the step, y the transcript size in
// tokens, each panel with its own y scale.
func SVG(title string, panels []Panel) string {
	const pw, ph, left, top, bottom, gap = 460.0, 300.0, 64.0, 48.0, 118.0, 24.0
	width := left + float64(len(panels))*(pw+gap+left) - left
	height := top + ph + bottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", left, esc(title))
	for i, p := range panels {
		x0 := left + float64(i)*(pw+gap+left)
		maxX, maxY := 1, 1
		for _, s := range p.Series {
			maxX = max(maxX, len(s.Points)-1)
			for _, v := range s.Points {
				maxY = max(maxY, v)
			}
		}
		yTop := niceCeil(float64(maxY))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="12" font-weight="bold">%s</text>`+"\n", x0, top-10, esc(p.Title))
		for k := 0; k <= 4; k++ {
			v := yTop * float64(k) / 4
			y := top + ph - ph*float64(k)/4
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x0, y, x0+pw, y)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, y+4, short(v))
		}
		for k := 0; k <= maxX; k++ {
			if maxX > 12 && k%2 == 1 {
				continue
			}
			x := x0 + pw*float64(k)/float64(maxX)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x, top+ph+14, k)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">step</text>`+"\n", x0+pw/2, top+ph+28)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888"/>`+"\n", x0, top, pw, ph)
		for j, s := range p.Series {
			var pts []string
			for k, v := range s.Points {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x0+pw*float64(k)/float64(maxX), top+ph-ph*float64(v)/yTop))
			}
			dash := ""
			if s.Dashed {
				dash = ` stroke-dasharray="5,3"`
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n", strings.Join(pts, " "), s.Color, dash)
			lx := x0 + float64(j%2)*pw/2
			ly := top + ph + 46 + float64(j/2)*14
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly-4, lx+18, ly-4, s.Color, dash)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+22, ly, esc(s.Name))
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func short(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
