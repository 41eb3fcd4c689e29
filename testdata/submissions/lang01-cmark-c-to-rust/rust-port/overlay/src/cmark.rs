//! cmark.h (types, enums, option flags, cmark_mem), cmark_version.h and cmark.c.
#[allow(unused_imports)]
use crate::*;
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn calloc(nmemb: usize, size: usize) -> *mut c_void;
    fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
    fn abort() -> !;
}

// ---- cmark_version.h ----
pub const CMARK_VERSION: i32 = (0 << 16) | (30 << 8) | 2;
pub const CMARK_VERSION_STRING: &str = "0.30.2";
/// NUL-terminated form of CMARK_VERSION_STRING (what cmark_version_string returns).
static CMARK_VERSION_STRING_NUL: &[u8] = b"0.30.2\0";

// ---- cmark_node_type ----
pub type cmark_node_type = u32;
/* Error status */
pub const CMARK_NODE_NONE: cmark_node_type = 0;
/* Block */
pub const CMARK_NODE_DOCUMENT: cmark_node_type = 1;
pub const CMARK_NODE_BLOCK_QUOTE: cmark_node_type = 2;
pub const CMARK_NODE_LIST: cmark_node_type = 3;
pub const CMARK_NODE_ITEM: cmark_node_type = 4;
pub const CMARK_NODE_CODE_BLOCK: cmark_node_type = 5;
pub const CMARK_NODE_HTML_BLOCK: cmark_node_type = 6;
pub const CMARK_NODE_CUSTOM_BLOCK: cmark_node_type = 7;
pub const CMARK_NODE_PARAGRAPH: cmark_node_type = 8;
pub const CMARK_NODE_HEADING: cmark_node_type = 9;
pub const CMARK_NODE_THEMATIC_BREAK: cmark_node_type = 10;
pub const CMARK_NODE_FIRST_BLOCK: cmark_node_type = CMARK_NODE_DOCUMENT;
pub const CMARK_NODE_LAST_BLOCK: cmark_node_type = CMARK_NODE_THEMATIC_BREAK;
/* Inline */
pub const CMARK_NODE_TEXT: cmark_node_type = 11;
pub const CMARK_NODE_SOFTBREAK: cmark_node_type = 12;
pub const CMARK_NODE_LINEBREAK: cmark_node_type = 13;
pub const CMARK_NODE_CODE: cmark_node_type = 14;
pub const CMARK_NODE_HTML_INLINE: cmark_node_type = 15;
pub const CMARK_NODE_CUSTOM_INLINE: cmark_node_type = 16;
pub const CMARK_NODE_EMPH: cmark_node_type = 17;
pub const CMARK_NODE_STRONG: cmark_node_type = 18;
pub const CMARK_NODE_LINK: cmark_node_type = 19;
pub const CMARK_NODE_IMAGE: cmark_node_type = 20;
pub const CMARK_NODE_FIRST_INLINE: cmark_node_type = CMARK_NODE_TEXT;
pub const CMARK_NODE_LAST_INLINE: cmark_node_type = CMARK_NODE_IMAGE;

/* For backwards compatibility: */
pub const CMARK_NODE_HEADER: cmark_node_type = CMARK_NODE_HEADING;
pub const CMARK_NODE_HRULE: cmark_node_type = CMARK_NODE_THEMATIC_BREAK;
pub const CMARK_NODE_HTML: cmark_node_type = CMARK_NODE_HTML_BLOCK;
pub const CMARK_NODE_INLINE_HTML: cmark_node_type = CMARK_NODE_HTML_INLINE;

// ---- cmark_list_type ----
pub type cmark_list_type = u32;
pub const CMARK_NO_LIST: cmark_list_type = 0;
pub const CMARK_BULLET_LIST: cmark_list_type = 1;
pub const CMARK_ORDERED_LIST: cmark_list_type = 2;

// ---- cmark_delim_type ----
pub type cmark_delim_type = u32;
pub const CMARK_NO_DELIM: cmark_delim_type = 0;
pub const CMARK_PERIOD_DELIM: cmark_delim_type = 1;
pub const CMARK_PAREN_DELIM: cmark_delim_type = 2;

// ---- cmark_event_type ----
pub type cmark_event_type = u32;
pub const CMARK_EVENT_NONE: cmark_event_type = 0;
pub const CMARK_EVENT_DONE: cmark_event_type = 1;
pub const CMARK_EVENT_ENTER: cmark_event_type = 2;
pub const CMARK_EVENT_EXIT: cmark_event_type = 3;

// ---- short names (CMARK_NO_SHORT_NAMES not defined) ----
pub const NODE_DOCUMENT: cmark_node_type = CMARK_NODE_DOCUMENT;
pub const NODE_BLOCK_QUOTE: cmark_node_type = CMARK_NODE_BLOCK_QUOTE;
pub const NODE_LIST: cmark_node_type = CMARK_NODE_LIST;
pub const NODE_ITEM: cmark_node_type = CMARK_NODE_ITEM;
pub const NODE_CODE_BLOCK: cmark_node_type = CMARK_NODE_CODE_BLOCK;
pub const NODE_HTML_BLOCK: cmark_node_type = CMARK_NODE_HTML_BLOCK;
pub const NODE_CUSTOM_BLOCK: cmark_node_type = CMARK_NODE_CUSTOM_BLOCK;
pub const NODE_PARAGRAPH: cmark_node_type = CMARK_NODE_PARAGRAPH;
pub const NODE_HEADING: cmark_node_type = CMARK_NODE_HEADING;
pub const NODE_HEADER: cmark_node_type = CMARK_NODE_HEADER;
pub const NODE_THEMATIC_BREAK: cmark_node_type = CMARK_NODE_THEMATIC_BREAK;
pub const NODE_HRULE: cmark_node_type = CMARK_NODE_HRULE;
pub const NODE_TEXT: cmark_node_type = CMARK_NODE_TEXT;
pub const NODE_SOFTBREAK: cmark_node_type = CMARK_NODE_SOFTBREAK;
pub const NODE_LINEBREAK: cmark_node_type = CMARK_NODE_LINEBREAK;
pub const NODE_CODE: cmark_node_type = CMARK_NODE_CODE;
pub const NODE_HTML_INLINE: cmark_node_type = CMARK_NODE_HTML_INLINE;
pub const NODE_CUSTOM_INLINE: cmark_node_type = CMARK_NODE_CUSTOM_INLINE;
pub const NODE_EMPH: cmark_node_type = CMARK_NODE_EMPH;
pub const NODE_STRONG: cmark_node_type = CMARK_NODE_STRONG;
pub const NODE_LINK: cmark_node_type = CMARK_NODE_LINK;
pub const NODE_IMAGE: cmark_node_type = CMARK_NODE_IMAGE;
pub const BULLET_LIST: cmark_list_type = CMARK_BULLET_LIST;
pub const ORDERED_LIST: cmark_list_type = CMARK_ORDERED_LIST;
pub const PERIOD_DELIM: cmark_delim_type = CMARK_PERIOD_DELIM;
pub const PAREN_DELIM: cmark_delim_type = CMARK_PAREN_DELIM;

// ---- options ----
pub const CMARK_OPT_DEFAULT: i32 = 0;
pub const CMARK_OPT_SOURCEPOS: i32 = 1 << 1;
pub const CMARK_OPT_HARDBREAKS: i32 = 1 << 2;
pub const CMARK_OPT_SAFE: i32 = 1 << 3;
pub const CMARK_OPT_UNSAFE: i32 = 1 << 17;
pub const CMARK_OPT_NOBREAKS: i32 = 1 << 4;
pub const CMARK_OPT_NORMALIZE: i32 = 1 << 8;
pub const CMARK_OPT_VALIDATE_UTF8: i32 = 1 << 9;
pub const CMARK_OPT_SMART: i32 = 1 << 10;

// ---- cmark_mem ----
/// Defines the memory allocation functions to be used by CMark
/// when parsing and allocating a document tree.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_mem {
    pub calloc: unsafe extern "C" fn(usize, usize) -> *mut c_void,
    pub realloc: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
    pub free: unsafe extern "C" fn(*mut c_void),
}

// ---- cmark.c ----
#[no_mangle]
pub unsafe extern "C" fn cmark_version() -> c_int {
    CMARK_VERSION
}

#[no_mangle]
pub unsafe extern "C" fn cmark_version_string() -> *const c_char {
    CMARK_VERSION_STRING_NUL.as_ptr() as *const c_char
}

unsafe fn write_stderr(msg: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(msg.as_bytes());
}

unsafe extern "C" fn xcalloc(nmem: usize, size: usize) -> *mut c_void {
    let ptr = calloc(nmem, size);
    if ptr.is_null() {
        write_stderr("[cmark] calloc returned null pointer, aborting\n");
        abort();
    }
    ptr
}

unsafe extern "C" fn xrealloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    let new_ptr = realloc(ptr, size);
    if new_ptr.is_null() {
        write_stderr("[cmark] realloc returned null pointer, aborting\n");
        abort();
    }
    new_ptr
}

pub static mut DEFAULT_MEM_ALLOCATOR: cmark_mem = cmark_mem {
    calloc: xcalloc,
    realloc: xrealloc,
    free: free,
};

#[no_mangle]
pub unsafe extern "C" fn cmark_get_default_mem_allocator() -> *mut cmark_mem {
    std::ptr::addr_of_mut!(DEFAULT_MEM_ALLOCATOR)
}

#[no_mangle]
pub unsafe extern "C" fn cmark_markdown_to_html(
    text: *const c_char,
    len: usize,
    options: c_int,
) -> *mut c_char {
    let doc: *mut cmark_node;
    let result: *mut c_char;

    doc = cmark_parse_document(text, len, options);

    result = cmark_render_html(doc, options);
    cmark_node_free(doc);

    result
}
