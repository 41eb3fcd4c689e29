package cli

import (
	"embed"
	"strings"
)

// helpFiles are the commands' long help texts, help/<command>.txt each.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is the long help of the command name (help/<name>.txt, its final
// newline trimmed). A missing file is a build mistake: help panics.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}
