package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/harbor"
	"github.com/swe-refactor-bench/srb/internal/image"
)

// ExportOptions are the inputs of srb export harbor.
type ExportOptions struct {
	IO       IOStreams
	Task     string
	Out      string
	Registry string
	Solution string // a submission fixture
	SRB      string // srb's static binary ("" is this executable)
	Docker   string // a static docker client ("" is docker on PATH)
	Cache    string
	PassEnv  []string
}

// NewCmdExport builds `srb export`.
func NewCmdExport(f *Factory, runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "export harbor TASK OUT --registry REG",
		Short: "Write a task as a Harbor task directory",
		Long:  help("export"),
		Args:  argsValidator(cobra.ExactArgs(3)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "harbor" {
				return &usageError{err: fmt.Errorf("export %s: the one format is harbor", args[0])}
			}
			opts.Task, opts.Out = args[1], args[2]
			if opts.Registry == "" {
				return &usageError{err: errors.New("--registry REG is required: the repository srb build --push published the images to")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runExport(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Registry, "registry", "", "the repository the images were pushed to (srb build --push REG)")
	fl.StringVar(&opts.Solution, "solution", "", "a submission fixture written as solution/solve.sh")
	fl.StringVar(&opts.SRB, "srb", "", "srb's static binary for the verifier image (default: this executable)")
	fl.StringVar(&opts.Docker, "docker", "", "a static docker client for the verifier image (default: docker on PATH)")
	fl.StringArrayVar(&opts.PassEnv, "pass-env", nil, "another variable passed to the verifier by name (repeatable)")
	addCacheFlag(cmd, &opts.Cache)
	return cmd
}

func runExport(ctx context.Context, opts *ExportOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	t, err := loadTask("export", opts.Task, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	lock, err := image.ReadLock(t.Dir)
	if err != nil {
		return couldNotRun(fmt.Errorf("export: %s: %w (srb build %s --push REG builds and locks the images)", filepath.Join(t.Dir, "images.lock"), err, t.ID))
	}
	cache, err := resolveCache(opts.Cache)
	if err != nil {
		return couldNotRun(fmt.Errorf("export: %w", err))
	}
	var sol *harbor.Solution
	if opts.Solution != "" {
		s, cleanup, err := grade.FixtureSolution(ctx, t, opts.Solution, cache)
		if err != nil {
			return couldNotRun(fmt.Errorf("export: --solution %s: %w", opts.Solution, err))
		}
		defer cleanup()
		sol = s
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return couldNotRun(err)
	}
	ex, err := harbor.Export(ctx, harbor.ExportOptions{Task: t, Lock: lock, Registry: opts.Registry, Out: out,
		SRBBinary: opts.SRB, DockerCLI: opts.Docker, Cache: cache, PassEnv: opts.PassEnv, Solution: sol})
	if err != nil {
		return couldNotRun(fmt.Errorf("export: %w", err))
	}
	fmt.Fprintf(opts.IO.Out, "%s: exported to %s (%d files): harbor run -p %s -a AGENT -m MODEL\n", t.ID, out, len(ex.Files), out)
	if names := harbor.CredentialNames(t); len(names) > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "note: the verifier reads %s from Harbor's environment, by name\n", strings.Join(names, ", "))
	}
	return nil
}
