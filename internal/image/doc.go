// Package image compiles a task's image declarations (schema/task.cue
// #Images) to BuildKit LLB, solves them with a BuildKit client, asserts
// each image's capabilities as part of its build, and keeps the lockfile
// (images.lock) that records every image's digest and the digests of its
// inputs.
//
// Compiling stays apart from solving, as in BuildKit's examples/buildkit0:
// [Compile] is a pure function of the task and its prepared [Inputs]
// (small funcs returning llb.State, each vertex named after the task
// field it comes from with llb.WithCustomName), so the same task gives
// the same Definition bytes. [Prepare] makes the host-side inputs (the
// debootstrap base, Go toolchains, State A as a git repository, the
// task's assets, srb's in-image helper) in fixed folders with normalised
// modes and times, each identified by a digest. [Builder] solves the
// compiled graphs against buildkitd, runs the capability probes and
// exports the images.
//
// Above that: [TaskBuild] is srb build of one task (with its identity
// run), [Builds] srb build over several tasks on one buildkitd, and
// [LoadingBuilder] the builder srb's stages fall back on for a stage
// image the engine lacks; [FindStage], [ReadyStage], [FreezeImages] and
// [StageImages] (the pipeline's image provider) find a stage image by
// images.lock, building it with the builder they are given.
package image
