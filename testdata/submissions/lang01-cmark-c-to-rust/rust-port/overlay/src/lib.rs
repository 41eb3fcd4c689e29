//! cmark: CommonMark parsing and rendering, the C library libcmark
//! rewritten in Rust behind the same C ABI (src/cmark.h).
//!
//! Each module is the Rust form of one C header and the C files that
//! implement it; every public item keeps its C name, and the crate root
//! re-exports them all, so a module reaches any other's items with
//! `use crate::*;` as the C files reached each other's headers.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
#![allow(dead_code, unused_mut, unused_assignments, clippy::all)]

pub mod blocks;
pub mod buffer;
pub mod chunk;
pub mod cmark;
pub mod cmark_ctype;
pub mod commonmark;
pub mod entities;
pub mod houdini;
pub mod html;
pub mod inlines;
pub mod iterator;
pub mod latex;
pub mod man;
pub mod node;
pub mod parser;
pub mod references;
pub mod render;
pub mod scanners;
pub mod utf8;
pub mod xml;

pub use blocks::*;
pub use buffer::*;
pub use chunk::*;
pub use cmark::*;
pub use cmark_ctype::*;
pub use commonmark::*;
pub use entities::*;
pub use houdini::*;
pub use html::*;
pub use inlines::*;
pub use iterator::*;
pub use latex::*;
pub use man::*;
pub use node::*;
pub use parser::*;
pub use references::*;
pub use render::*;
pub use scanners::*;
pub use utf8::*;
pub use xml::*;
