package submission

import "fmt"

// Describe says what the fixture changes on State A: "untouched", "N
// delete line(s)", or "N delete line(s) and overlay/".
func (fx *Fixture) Describe() string {
	switch {
	case fx.Untouched:
		return "untouched"
	case fx.Overlay == "":
		return fmt.Sprintf("%d delete line(s)", len(fx.Delete))
	}
	return fmt.Sprintf("%d delete line(s) and overlay/", len(fx.Delete))
}
