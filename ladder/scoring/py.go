package scoring

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// truthy is Python's bool(v) for a value from stage metadata.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case float64:
		return x != 0
	case int:
		return x != 0
	case int64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// pyStr is Python's str(v) for a scalar from stage metadata.
func pyStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return string(x)
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	}
	return fmt.Sprint(v)
}

// isPyInt reports whether v is an integer as Python's isinstance(v, int)
// would see it after json.load (booleans excluded).
func isPyInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return 0, false
		}
		i, err := strconv.ParseInt(string(x), 10, 64)
		return int(i), err == nil
	}
	return 0, false
}
