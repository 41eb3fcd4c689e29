package behavioural

import (
	"encoding/json"
	"sort"
)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
