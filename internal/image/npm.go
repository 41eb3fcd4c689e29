package image

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// NPMConfigMount is where an npm install step sees the host's npm
// configuration (NPMConfigFile) and CA bundle (NPMCAFile): a read-only
// mount of the npm-config input for that step alone, never part of a
// layer, so the image's content and digest do not depend on it.
const NPMConfigMount = "/run/srb-npm"

// The files of the npm-config input.
const (
	// NPMConfigFile is an npmrc holding the host's registry and proxy
	// settings; the npm step points NPM_CONFIG_USERCONFIG at it.
	NPMConfigFile = "npmrc"
	// NPMCAFile is the host's CA bundle; the npm step points
	// NODE_EXTRA_CA_CERTS at it, so a registry behind a CA the image's
	// ca-certificates lacks (SELF_SIGNED_CERT_IN_CHAIN) is trusted for
	// that step.
	NPMCAFile = "ca.pem"
)

// npmSettings are the npm settings copied from the host into the npm
// step's npmrc, when the host's npm (or its environment) sets them:
// where the registry is and how it is reached. Credentials are never
// copied.
var npmSettings = []string{"registry", "https-proxy", "proxy", "noproxy"}

// caCandidates are, in order, where the host's CA bundle is looked for
// after npm's own cafile setting.
func caCandidates() []string {
	return []string{os.Getenv("NODE_EXTRA_CA_CERTS"), os.Getenv("SSL_CERT_FILE"), "/etc/ssl/certs/ca-certificates.crt"}
}

// HostNPM is how the host reaches the npm registry, as the host's own npm
// sees it: the values of npmSettings that are set, and the CA bundle.
type HostNPM struct {
	// Settings maps an npm setting to its value ("registry" → its URL).
	Settings map[string]string
	// CAFile is the host's CA bundle ("" when none was found).
	CAFile string
}

// npmGet is `npm config get KEY` on the host, or "" when npm is not
// installed, fails, or reports the setting unset.
var npmGet = func(ctx context.Context, key string) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "config", "get", key).Output()
	if err != nil {
		return ""
	}
	v := strings.TrimSpace(string(out))
	if v == "null" || v == "undefined" || v == `[""]` || v == "" {
		return ""
	}
	return v
}

// DiscoverNPM reads the host's npm configuration the way the host's npm
// does: `npm config get` (which reads npmrc files and npm_config_*
// variables), else the npm_config_* variables themselves when npm is
// not installed. The CA bundle is npm's cafile, else NODE_EXTRA_CA_CERTS,
// else SSL_CERT_FILE, else the system bundle, the first that exists.
func DiscoverNPM(ctx context.Context) HostNPM {
	h := HostNPM{Settings: map[string]string{}}
	_, err := exec.LookPath("npm")
	haveNPM := err == nil
	for _, k := range npmSettings {
		var v string
		if haveNPM {
			v = npmGet(ctx, k)
		} else {
			env := "npm_config_" + strings.ReplaceAll(k, "-", "_")
			v = os.Getenv(env)
			if v == "" {
				v = os.Getenv(strings.ToUpper(env))
			}
		}
		if v != "" {
			h.Settings[k] = v
		}
	}
	cands := caCandidates()
	if haveNPM {
		cands = append([]string{npmGet(ctx, "cafile")}, cands...)
	}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			h.CAFile = c
			break
		}
	}
	return h
}

// needsNPM says whether any stage image of t declares npm packages.
func needsNPM(t *task.Task) bool {
	for _, s := range task.StageNames {
		if len(t.Images.Stage(s).NPM) > 0 {
			return true
		}
	}
	return false
}

// prepareNPMConfig stages the npm-config input, content-addressed under
// root/staged/npm-config (see [stageContent]): the npmrc of h's settings
// and a copy of its CA bundle (empty when the host has none). It is not
// an input of any image's content: the npm step mounts it read-only, so
// it is not in the lockfile.
func prepareNPMConfig(h HostNPM, root string) (*Input, error) {
	dir, d, err := stageContent(filepath.Join(root, "staged", "npm-config"), func(tmp string) error {
		tree := filepath.Join(tmp, "tree")
		if err := os.MkdirAll(tree, 0o755); err != nil {
			return err
		}
		var rc strings.Builder
		for _, k := range npmSettings {
			if v, ok := h.Settings[k]; ok {
				fmt.Fprintf(&rc, "%s=%s\n", k, v)
			}
		}
		if err := os.WriteFile(filepath.Join(tree, NPMConfigFile), []byte(rc.String()), 0o644); err != nil {
			return err
		}
		var ca []byte
		if h.CAFile != "" {
			var err error
			if ca, err = os.ReadFile(h.CAFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("CA bundle: %w", err)
			}
		}
		return os.WriteFile(filepath.Join(tree, NPMCAFile), ca, 0o644)
	})
	if err != nil {
		return nil, fmt.Errorf("npm config: %w", err)
	}
	about := "the host's npm configuration (" + strings.Join(sortedKeys(h.Settings), ", ") + ")"
	if h.CAFile != "" {
		about += " and CA bundle " + h.CAFile
	}
	return &Input{Name: "npm-config", Dir: dir, Digest: d, About: about}, nil
}
