// Command benchplot draws p50 and p99 latency per query class against
// dataset size from "gatehouse bench run --json" reports, as a PNG:
//
//	go run ./scripts/benchplot -o docs/performance.png 100k=run-100k.json 1M=run-1m.json 10M=run-10m.json
//
// Each argument is LABEL=FILE, in increasing dataset size.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

type report struct {
	Results []struct {
		Class string `json:"class"`
		API   struct {
			P50 float64 `json:"p50Ms"`
			P99 float64 `json:"p99Ms"`
		} `json:"api"`
	} `json:"results"`
}

func main() {
	out := flag.String("o", "performance.png", "PNG to write")
	flag.Parse()
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

func run(out string, args []string) error {
	if len(args) < 2 {
		return errors.New("give at least two LABEL=FILE reports, smallest dataset first")
	}
	var labels, classes []string
	series := map[string][2][]float64{} // class → p50s, p99s by dataset
	for _, a := range args {
		label, file, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q is not LABEL=FILE", a)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		labels = append(labels, label)
		for _, res := range r.Results {
			if res.Class == "post_1000" {
				continue // a write, on its own scale
			}
			s, seen := series[res.Class]
			if !seen {
				classes = append(classes, res.Class)
			}
			s[0], s[1] = append(s[0], res.API.P50), append(s[1], res.API.P99)
			series[res.Class] = s
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, 1200, 560))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for panel, title := range []string{"p50 latency, ms (log scale)", "p99 latency, ms (log scale)"} {
		area := image.Rect(60+panel*470, 40, 60+panel*470+400, 500)
		axes(img, area, title, labels)
		for i, c := range classes {
			line(img, area, series[c][panel], palette[i%len(palette)])
		}
	}
	for i, c := range classes { // legend
		y := 50 + i*18
		fill(img, image.Rect(1000, y-8, 1020, y-2), palette[i%len(palette)])
		text(img, 1026, y, c)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}

// The y axis spans 0.1 ms to 1,000 ms, logarithmically.
const yMin, yMax = -1.0, 3.0

func yOf(area image.Rectangle, ms float64) int {
	v := math.Log10(max(ms, 0.1))
	return area.Max.Y - int(float64(area.Dy())*(v-yMin)/(yMax-yMin))
}

func xOf(area image.Rectangle, i, n int) int {
	return area.Min.X + 20 + i*(area.Dx()-40)/max(n-1, 1)
}

func axes(img *image.RGBA, area image.Rectangle, title string, labels []string) {
	grey := color.RGBA{200, 200, 200, 255}
	for v := yMin; v <= yMax; v++ {
		y := yOf(area, math.Pow(10, v))
		fill(img, image.Rect(area.Min.X, y, area.Max.X, y+1), grey)
		text(img, area.Min.X-45, y+4, fmt.Sprintf("%g", math.Pow(10, v)))
	}
	fill(img, image.Rect(area.Min.X, area.Min.Y, area.Min.X+1, area.Max.Y), color.Black)
	fill(img, image.Rect(area.Min.X, area.Max.Y, area.Max.X, area.Max.Y+1), color.Black)
	for i, l := range labels {
		text(img, xOf(area, i, len(labels))-10, area.Max.Y+20, l)
	}
	text(img, area.Min.X, area.Min.Y-15, title)
	text(img, area.Min.X+area.Dx()/2-40, area.Max.Y+40, "events in the log")
}

func line(img *image.RGBA, area image.Rectangle, values []float64, c color.Color) {
	for i := range values {
		x, y := xOf(area, i, len(values)), yOf(area, values[i])
		fill(img, image.Rect(x-2, y-2, x+3, y+3), c)
		if i == 0 {
			continue
		}
		px, py := xOf(area, i-1, len(values)), yOf(area, values[i-1])
		steps := max(abs(x-px), abs(y-py))
		for s := 0; s <= steps; s++ {
			img.Set(px+(x-px)*s/steps, py+(y-py)*s/steps, c)
			img.Set(px+(x-px)*s/steps, py+(y-py)*s/steps+1, c)
		}
	}
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

func text(img *image.RGBA, x, y int, s string) {
	d := font.Drawer{Dst: img, Src: image.Black, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func abs(v int) int { return max(v, -v) }

var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255}, color.RGBA{188, 189, 34, 255},
	color.RGBA{23, 190, 207, 255}, color.RGBA{0, 0, 0, 255}, color.RGBA{255, 187, 120, 255},
	color.RGBA{152, 223, 138, 255}, color.RGBA{255, 152, 150, 255}, color.RGBA{197, 176, 213, 255},
}
