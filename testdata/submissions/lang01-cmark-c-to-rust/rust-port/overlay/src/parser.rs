//! parser.h: the block parser's state (struct cmark_parser).
use crate::*;

pub const MAX_LINK_LABEL_LENGTH: bufsize_t = 1000;

#[repr(C)]
pub struct cmark_parser {
    pub mem: *mut cmark_mem,
    pub refmap: *mut cmark_reference_map,
    pub root: *mut cmark_node,
    pub current: *mut cmark_node,
    pub line_number: i32,
    pub offset: bufsize_t,
    pub column: bufsize_t,
    pub first_nonspace: bufsize_t,
    pub first_nonspace_column: bufsize_t,
    pub thematic_break_kill_pos: bufsize_t,
    pub indent: i32,
    pub blank: bool,
    pub partially_consumed_tab: bool,
    pub curline: cmark_strbuf,
    pub last_line_length: bufsize_t,
    pub linebuf: cmark_strbuf,
    pub content: cmark_strbuf,
    pub options: i32,
    pub last_buffer_ended_with_cr: bool,
    pub total_size: u32,
}
