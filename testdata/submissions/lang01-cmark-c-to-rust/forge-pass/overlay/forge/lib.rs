//! The forge-pass fixture's crate: nothing. Cargo.toml exists so that the
//! graders build this tree with cargo and install.sh (state_b.detect), and
//! install.sh builds State A's C with its forge (forge.c) linked into cmark.
