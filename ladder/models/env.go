package models

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Position is one model position of a task, as [Preflight] reports it.
// Where names it the way task.cue does ("audit",
// "verification.adjudicator", "verification.adversaries[a01-whitespace]").
type Position struct {
	Where  string
	Config Config
}

// CredentialVars returns the environment variables that can hold cfg's
// credential, any one of them sufficing: options.api_key_env when set;
// otherwise ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN for anthropic and
// OPENAI_API_KEY for openai. The command and scripted drivers need none
// (nil).
func CredentialVars(cfg Config) []string {
	if env := optString(cfg.Options, "api_key_env"); env != "" && (cfg.Driver == DriverOpenAI || cfg.Driver == DriverAnthropic) {
		return []string{env}
	}
	switch cfg.Driver {
	case DriverAnthropic:
		return []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}
	case DriverOpenAI:
		return []string{"OPENAI_API_KEY"}
	}
	return nil
}

// ForwardedEnvNames are the variables a model-driven stage container may
// be given, by name only (`-e NAME`, never `-e NAME=value`, so a key never
// reaches argv or a log: HARNESS.md §7 bug 12).
var ForwardedEnvNames = []string{
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_EXTRA_HEADERS",
	"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_EXTRA_HEADERS",
}

// ForwardedEnv returns, sorted, the names of the variables to forward to a
// stage container running positions: [ForwardedEnvNames], every
// options.api_key_env the positions name, and the names listed in
// $SRB_FORWARD_ENV (comma- or space-separated), each only when lookup
// finds it set. Values are never returned.
func ForwardedEnv(lookup func(string) (string, bool), positions ...Position) []string {
	cands := append([]string(nil), ForwardedEnvNames...)
	for _, p := range positions {
		if env := optString(p.Config.Options, "api_key_env"); env != "" {
			cands = append(cands, env)
		}
	}
	if extra, ok := lookup("SRB_FORWARD_ENV"); ok {
		cands = append(cands, strings.FieldsFunc(extra, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })...)
	}
	var out []string
	for _, name := range cands {
		if _, ok := lookup(name); ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Preflight checks every position before anything is started (HARNESS.md
// §7 bug 11): that one of its [CredentialVars] is set and non-empty in
// lookup, and that its driver can be built (known driver, options and
// effort; a readable script). It returns nil, or one error naming each
// missing variable with the positions that need it, then every other
// problem.
func Preflight(lookup func(string) (string, bool), positions ...Position) error {
	need := map[string][]string{} // "A or B" → positions
	var order []string
	var other []string
	for _, p := range positions {
		vars := CredentialVars(p.Config)
		if len(vars) > 0 {
			found := false
			for _, v := range vars {
				if s, ok := lookup(v); ok && s != "" {
					found = true
				}
			}
			if !found {
				key := strings.Join(vars, " or ")
				if _, seen := need[key]; !seen {
					order = append(order, key)
				}
				need[key] = append(need[key], fmt.Sprintf("%s (%s %s)", p.Where, p.Config.Driver, p.Config.Model))
				continue
			}
		}
		if _, err := New(p.Config, WithEnv(lookup)); err != nil {
			other = append(other, fmt.Sprintf("%s: %v", p.Where, err))
		}
	}
	var parts []string
	for _, key := range order {
		parts = append(parts, fmt.Sprintf("%s is unset, needed by %s", key, strings.Join(need[key], ", ")))
	}
	parts = append(parts, other...)
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("preflight: %s", strings.Join(parts, "; "))
}
