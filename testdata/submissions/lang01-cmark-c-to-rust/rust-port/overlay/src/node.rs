//! node.h + node.c: the cmark_node tree and its public accessors.
use crate::*;
use std::os::raw::{c_char, c_void};

/// C's `FILE` (opaque; only ever handled by pointer).
pub type FILE = c_void;

extern "C" {
    fn strlen(s: *const c_char) -> usize;
    fn fwrite(ptr: *const c_void, size: usize, nmemb: usize, stream: *mut FILE) -> usize;
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_list {
    pub marker_offset: i32,
    pub padding: i32,
    pub start: i32,
    pub list_type: u8,
    pub delimiter: u8,
    pub bullet_char: u8,
    pub tight: bool,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_code {
    pub info: *mut u8,
    pub fence_length: u8,
    pub fence_offset: u8,
    pub fence_char: u8,
    pub fenced: i8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_heading {
    pub level: i32,
    pub setext: bool,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_link {
    pub url: *mut u8,
    pub title: *mut u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_custom {
    pub on_enter: *mut u8,
    pub on_exit: *mut u8,
}

pub type cmark_node__internal_flags = u32;
pub const CMARK_NODE__OPEN: cmark_node__internal_flags = 1 << 0;
pub const CMARK_NODE__LAST_LINE_BLANK: cmark_node__internal_flags = 1 << 1;
pub const CMARK_NODE__LAST_LINE_CHECKED: cmark_node__internal_flags = 1 << 2;

#[repr(C)]
#[derive(Clone, Copy)]
pub union cmark_node__as {
    pub list: cmark_list,
    pub code: cmark_code,
    pub heading: cmark_heading,
    pub link: cmark_link,
    pub custom: cmark_custom,
    pub html_block_type: i32,
}

#[repr(C)]
pub struct cmark_node {
    pub mem: *mut cmark_mem,

    pub next: *mut cmark_node,
    pub prev: *mut cmark_node,
    pub parent: *mut cmark_node,
    pub first_child: *mut cmark_node,
    pub last_child: *mut cmark_node,

    pub user_data: *mut c_void,

    pub data: *mut u8,
    pub len: bufsize_t,

    pub start_line: i32,
    pub start_column: i32,
    pub end_line: i32,
    pub end_column: i32,
    pub internal_offset: i32,
    pub type_: u16,
    pub flags: u16,

    pub as_: cmark_node__as,
}

#[inline]
unsafe fn S_is_block(node: *mut cmark_node) -> bool {
    if node.is_null() {
        return false;
    }
    (*node).type_ as cmark_node_type >= CMARK_NODE_FIRST_BLOCK
        && (*node).type_ as cmark_node_type <= CMARK_NODE_LAST_BLOCK
}

#[inline]
unsafe fn S_is_inline(node: *mut cmark_node) -> bool {
    if node.is_null() {
        return false;
    }
    (*node).type_ as cmark_node_type >= CMARK_NODE_FIRST_INLINE
        && (*node).type_ as cmark_node_type <= CMARK_NODE_LAST_INLINE
}

unsafe fn S_can_contain(node: *mut cmark_node, child: *mut cmark_node) -> bool {
    if node.is_null() || child.is_null() || node == child {
        return false;
    }

    // Verify that child is not an ancestor of node.
    if !(*child).first_child.is_null() {
        let mut cur: *mut cmark_node = (*node).parent;

        while !cur.is_null() {
            if cur == child {
                return false;
            }
            cur = (*cur).parent;
        }
    }

    if (*child).type_ as cmark_node_type == CMARK_NODE_DOCUMENT {
        return false;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_DOCUMENT | CMARK_NODE_BLOCK_QUOTE | CMARK_NODE_ITEM => {
            return S_is_block(child) && (*child).type_ as cmark_node_type != CMARK_NODE_ITEM;
        }

        CMARK_NODE_LIST => {
            return (*child).type_ as cmark_node_type == CMARK_NODE_ITEM;
        }

        CMARK_NODE_CUSTOM_BLOCK => {
            return true;
        }

        CMARK_NODE_PARAGRAPH
        | CMARK_NODE_HEADING
        | CMARK_NODE_EMPH
        | CMARK_NODE_STRONG
        | CMARK_NODE_LINK
        | CMARK_NODE_IMAGE
        | CMARK_NODE_CUSTOM_INLINE => {
            return S_is_inline(child);
        }

        _ => {}
    }

    false
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_new_with_mem(
    type_: cmark_node_type,
    mem: *mut cmark_mem,
) -> *mut cmark_node {
    let node = ((*mem).calloc)(1, std::mem::size_of::<cmark_node>()) as *mut cmark_node;
    (*node).mem = mem;
    (*node).type_ = type_ as u16;

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_HEADING => {
            (*node).as_.heading.level = 1;
        }

        CMARK_NODE_LIST => {
            let list: *mut cmark_list = std::ptr::addr_of_mut!((*node).as_.list);
            (*list).list_type = CMARK_BULLET_LIST as u8;
            (*list).start = 0;
            (*list).tight = false;
        }

        _ => {}
    }

    node
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_new(type_: cmark_node_type) -> *mut cmark_node {
    cmark_node_new_with_mem(
        type_,
        std::ptr::addr_of!(DEFAULT_MEM_ALLOCATOR) as *mut cmark_mem,
    )
}

// Free a cmark_node list and any children.
unsafe fn S_free_nodes(mut e: *mut cmark_node) {
    let mem: *mut cmark_mem = (*e).mem;
    let mut next: *mut cmark_node;
    while !e.is_null() {
        match (*e).type_ as cmark_node_type {
            CMARK_NODE_CODE_BLOCK => {
                ((*mem).free)((*e).data as *mut c_void);
                ((*mem).free)((*e).as_.code.info as *mut c_void);
            }
            CMARK_NODE_TEXT | CMARK_NODE_HTML_INLINE | CMARK_NODE_CODE | CMARK_NODE_HTML_BLOCK => {
                ((*mem).free)((*e).data as *mut c_void);
            }
            CMARK_NODE_LINK | CMARK_NODE_IMAGE => {
                ((*mem).free)((*e).as_.link.url as *mut c_void);
                ((*mem).free)((*e).as_.link.title as *mut c_void);
            }
            CMARK_NODE_CUSTOM_BLOCK | CMARK_NODE_CUSTOM_INLINE => {
                ((*mem).free)((*e).as_.custom.on_enter as *mut c_void);
                ((*mem).free)((*e).as_.custom.on_exit as *mut c_void);
            }
            _ => {}
        }
        if !(*e).last_child.is_null() {
            // Splice children into list
            (*(*e).last_child).next = (*e).next;
            (*e).next = (*e).first_child;
        }
        next = (*e).next;
        ((*mem).free)(e as *mut c_void);
        e = next;
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_free(node: *mut cmark_node) {
    S_node_unlink(node);
    (*node).next = std::ptr::null_mut();
    S_free_nodes(node);
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_type(node: *mut cmark_node) -> cmark_node_type {
    if node.is_null() {
        CMARK_NODE_NONE
    } else {
        (*node).type_ as cmark_node_type
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_type_string(node: *mut cmark_node) -> *const c_char {
    if node.is_null() {
        return b"NONE\0".as_ptr() as *const c_char;
    }

    let s: &'static [u8] = match (*node).type_ as cmark_node_type {
        CMARK_NODE_NONE => b"none\0",
        CMARK_NODE_DOCUMENT => b"document\0",
        CMARK_NODE_BLOCK_QUOTE => b"block_quote\0",
        CMARK_NODE_LIST => b"list\0",
        CMARK_NODE_ITEM => b"item\0",
        CMARK_NODE_CODE_BLOCK => b"code_block\0",
        CMARK_NODE_HTML_BLOCK => b"html_block\0",
        CMARK_NODE_CUSTOM_BLOCK => b"custom_block\0",
        CMARK_NODE_PARAGRAPH => b"paragraph\0",
        CMARK_NODE_HEADING => b"heading\0",
        CMARK_NODE_THEMATIC_BREAK => b"thematic_break\0",
        CMARK_NODE_TEXT => b"text\0",
        CMARK_NODE_SOFTBREAK => b"softbreak\0",
        CMARK_NODE_LINEBREAK => b"linebreak\0",
        CMARK_NODE_CODE => b"code\0",
        CMARK_NODE_HTML_INLINE => b"html_inline\0",
        CMARK_NODE_CUSTOM_INLINE => b"custom_inline\0",
        CMARK_NODE_EMPH => b"emph\0",
        CMARK_NODE_STRONG => b"strong\0",
        CMARK_NODE_LINK => b"link\0",
        CMARK_NODE_IMAGE => b"image\0",
        _ => b"<unknown>\0",
    };
    s.as_ptr() as *const c_char
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_next(node: *mut cmark_node) -> *mut cmark_node {
    if node.is_null() {
        std::ptr::null_mut()
    } else {
        (*node).next
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_previous(node: *mut cmark_node) -> *mut cmark_node {
    if node.is_null() {
        std::ptr::null_mut()
    } else {
        (*node).prev
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_parent(node: *mut cmark_node) -> *mut cmark_node {
    if node.is_null() {
        std::ptr::null_mut()
    } else {
        (*node).parent
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_first_child(node: *mut cmark_node) -> *mut cmark_node {
    if node.is_null() {
        std::ptr::null_mut()
    } else {
        (*node).first_child
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_last_child(node: *mut cmark_node) -> *mut cmark_node {
    if node.is_null() {
        std::ptr::null_mut()
    } else {
        (*node).last_child
    }
}

unsafe fn cmark_set_cstr(mem: *mut cmark_mem, dst: *mut *mut u8, src: *const c_char) -> bufsize_t {
    let old: *mut u8 = *dst;
    let len: bufsize_t;

    if !src.is_null() && *src != 0 {
        len = strlen(src) as bufsize_t;
        *dst = ((*mem).realloc)(std::ptr::null_mut(), (len + 1) as usize) as *mut u8;
        std::ptr::copy_nonoverlapping(src as *const u8, *dst, (len + 1) as usize);
    } else {
        len = 0;
        *dst = std::ptr::null_mut();
    }
    if !old.is_null() {
        ((*mem).free)(old as *mut c_void);
    }

    len
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_user_data(node: *mut cmark_node) -> *mut c_void {
    if node.is_null() {
        std::ptr::null_mut()
    } else {
        (*node).user_data
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_user_data(node: *mut cmark_node, user_data: *mut c_void) -> i32 {
    if node.is_null() {
        return 0;
    }
    (*node).user_data = user_data;
    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_literal(node: *mut cmark_node) -> *const c_char {
    if node.is_null() {
        return std::ptr::null();
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_HTML_BLOCK | CMARK_NODE_TEXT | CMARK_NODE_HTML_INLINE | CMARK_NODE_CODE
        | CMARK_NODE_CODE_BLOCK => {
            return if !(*node).data.is_null() {
                (*node).data as *const c_char
            } else {
                b"\0".as_ptr() as *const c_char
            };
        }

        _ => {}
    }

    std::ptr::null()
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_literal(node: *mut cmark_node, content: *const c_char) -> i32 {
    if node.is_null() {
        return 0;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_HTML_BLOCK | CMARK_NODE_TEXT | CMARK_NODE_HTML_INLINE | CMARK_NODE_CODE
        | CMARK_NODE_CODE_BLOCK => {
            (*node).len = cmark_set_cstr((*node).mem, std::ptr::addr_of_mut!((*node).data), content);
            return 1;
        }

        _ => {}
    }

    0
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_heading_level(node: *mut cmark_node) -> i32 {
    if node.is_null() {
        return 0;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_HEADING => {
            return (*node).as_.heading.level;
        }

        _ => {}
    }

    0
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_heading_level(node: *mut cmark_node, level: i32) -> i32 {
    if node.is_null() || level < 1 || level > 6 {
        return 0;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_HEADING => {
            (*node).as_.heading.level = level;
            return 1;
        }

        _ => {}
    }

    0
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_list_type(node: *mut cmark_node) -> cmark_list_type {
    if node.is_null() {
        return CMARK_NO_LIST;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_LIST {
        (*node).as_.list.list_type as cmark_list_type
    } else {
        CMARK_NO_LIST
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_list_type(node: *mut cmark_node, type_: cmark_list_type) -> i32 {
    if !(type_ == CMARK_BULLET_LIST || type_ == CMARK_ORDERED_LIST) {
        return 0;
    }

    if node.is_null() {
        return 0;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_LIST {
        (*node).as_.list.list_type = type_ as u8;
        1
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_list_delim(node: *mut cmark_node) -> cmark_delim_type {
    if node.is_null() {
        return CMARK_NO_DELIM;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_LIST {
        (*node).as_.list.delimiter as cmark_delim_type
    } else {
        CMARK_NO_DELIM
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_list_delim(node: *mut cmark_node, delim: cmark_delim_type) -> i32 {
    if !(delim == CMARK_PERIOD_DELIM || delim == CMARK_PAREN_DELIM) {
        return 0;
    }

    if node.is_null() {
        return 0;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_LIST {
        (*node).as_.list.delimiter = delim as u8;
        1
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_list_start(node: *mut cmark_node) -> i32 {
    if node.is_null() {
        return 0;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_LIST {
        (*node).as_.list.start
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_list_start(node: *mut cmark_node, start: i32) -> i32 {
    if node.is_null() || start < 0 {
        return 0;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_LIST {
        (*node).as_.list.start = start;
        1
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_list_tight(node: *mut cmark_node) -> i32 {
    if node.is_null() {
        return 0;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_LIST {
        (*node).as_.list.tight as i32
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_list_tight(node: *mut cmark_node, tight: i32) -> i32 {
    if node.is_null() {
        return 0;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_LIST {
        (*node).as_.list.tight = tight == 1;
        1
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_fence_info(node: *mut cmark_node) -> *const c_char {
    if node.is_null() {
        return std::ptr::null();
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_CODE_BLOCK {
        if !(*node).as_.code.info.is_null() {
            (*node).as_.code.info as *const c_char
        } else {
            b"\0".as_ptr() as *const c_char
        }
    } else {
        std::ptr::null()
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_fence_info(node: *mut cmark_node, info: *const c_char) -> i32 {
    if node.is_null() {
        return 0;
    }

    if (*node).type_ as cmark_node_type == CMARK_NODE_CODE_BLOCK {
        cmark_set_cstr((*node).mem, std::ptr::addr_of_mut!((*node).as_.code.info), info);
        1
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_url(node: *mut cmark_node) -> *const c_char {
    if node.is_null() {
        return std::ptr::null();
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_LINK | CMARK_NODE_IMAGE => {
            return if !(*node).as_.link.url.is_null() {
                (*node).as_.link.url as *const c_char
            } else {
                b"\0".as_ptr() as *const c_char
            };
        }
        _ => {}
    }

    std::ptr::null()
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_url(node: *mut cmark_node, url: *const c_char) -> i32 {
    if node.is_null() {
        return 0;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_LINK | CMARK_NODE_IMAGE => {
            cmark_set_cstr((*node).mem, std::ptr::addr_of_mut!((*node).as_.link.url), url);
            return 1;
        }
        _ => {}
    }

    0
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_title(node: *mut cmark_node) -> *const c_char {
    if node.is_null() {
        return std::ptr::null();
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_LINK | CMARK_NODE_IMAGE => {
            return if !(*node).as_.link.title.is_null() {
                (*node).as_.link.title as *const c_char
            } else {
                b"\0".as_ptr() as *const c_char
            };
        }
        _ => {}
    }

    std::ptr::null()
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_title(node: *mut cmark_node, title: *const c_char) -> i32 {
    if node.is_null() {
        return 0;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_LINK | CMARK_NODE_IMAGE => {
            cmark_set_cstr((*node).mem, std::ptr::addr_of_mut!((*node).as_.link.title), title);
            return 1;
        }
        _ => {}
    }

    0
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_on_enter(node: *mut cmark_node) -> *const c_char {
    if node.is_null() {
        return std::ptr::null();
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_CUSTOM_INLINE | CMARK_NODE_CUSTOM_BLOCK => {
            return if !(*node).as_.custom.on_enter.is_null() {
                (*node).as_.custom.on_enter as *const c_char
            } else {
                b"\0".as_ptr() as *const c_char
            };
        }
        _ => {}
    }

    std::ptr::null()
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_on_enter(node: *mut cmark_node, on_enter: *const c_char) -> i32 {
    if node.is_null() {
        return 0;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_CUSTOM_INLINE | CMARK_NODE_CUSTOM_BLOCK => {
            cmark_set_cstr(
                (*node).mem,
                std::ptr::addr_of_mut!((*node).as_.custom.on_enter),
                on_enter,
            );
            return 1;
        }
        _ => {}
    }

    0
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_on_exit(node: *mut cmark_node) -> *const c_char {
    if node.is_null() {
        return std::ptr::null();
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_CUSTOM_INLINE | CMARK_NODE_CUSTOM_BLOCK => {
            return if !(*node).as_.custom.on_exit.is_null() {
                (*node).as_.custom.on_exit as *const c_char
            } else {
                b"\0".as_ptr() as *const c_char
            };
        }
        _ => {}
    }

    std::ptr::null()
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_set_on_exit(node: *mut cmark_node, on_exit: *const c_char) -> i32 {
    if node.is_null() {
        return 0;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_CUSTOM_INLINE | CMARK_NODE_CUSTOM_BLOCK => {
            cmark_set_cstr(
                (*node).mem,
                std::ptr::addr_of_mut!((*node).as_.custom.on_exit),
                on_exit,
            );
            return 1;
        }
        _ => {}
    }

    0
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_start_line(node: *mut cmark_node) -> i32 {
    if node.is_null() {
        return 0;
    }
    (*node).start_line
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_start_column(node: *mut cmark_node) -> i32 {
    if node.is_null() {
        return 0;
    }
    (*node).start_column
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_end_line(node: *mut cmark_node) -> i32 {
    if node.is_null() {
        return 0;
    }
    (*node).end_line
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_get_end_column(node: *mut cmark_node) -> i32 {
    if node.is_null() {
        return 0;
    }
    (*node).end_column
}

// Unlink a node without adjusting its next, prev, and parent pointers.
unsafe fn S_node_unlink(node: *mut cmark_node) {
    if node.is_null() {
        return;
    }

    if !(*node).prev.is_null() {
        (*(*node).prev).next = (*node).next;
    }
    if !(*node).next.is_null() {
        (*(*node).next).prev = (*node).prev;
    }

    // Adjust first_child and last_child of parent.
    let parent: *mut cmark_node = (*node).parent;
    if !parent.is_null() {
        if (*parent).first_child == node {
            (*parent).first_child = (*node).next;
        }
        if (*parent).last_child == node {
            (*parent).last_child = (*node).prev;
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_unlink(node: *mut cmark_node) {
    S_node_unlink(node);

    (*node).next = std::ptr::null_mut();
    (*node).prev = std::ptr::null_mut();
    (*node).parent = std::ptr::null_mut();
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_insert_before(node: *mut cmark_node, sibling: *mut cmark_node) -> i32 {
    if node.is_null() || sibling.is_null() {
        return 0;
    }

    if (*node).parent.is_null() || !S_can_contain((*node).parent, sibling) {
        return 0;
    }

    S_node_unlink(sibling);

    let old_prev: *mut cmark_node = (*node).prev;

    // Insert 'sibling' between 'old_prev' and 'node'.
    if !old_prev.is_null() {
        (*old_prev).next = sibling;
    }
    (*sibling).prev = old_prev;
    (*sibling).next = node;
    (*node).prev = sibling;

    // Set new parent.
    let parent: *mut cmark_node = (*node).parent;
    (*sibling).parent = parent;

    // Adjust first_child of parent if inserted as first child.
    if !parent.is_null() && old_prev.is_null() {
        (*parent).first_child = sibling;
    }

    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_insert_after(node: *mut cmark_node, sibling: *mut cmark_node) -> i32 {
    if node.is_null() || sibling.is_null() {
        return 0;
    }

    if (*node).parent.is_null() || !S_can_contain((*node).parent, sibling) {
        return 0;
    }

    S_node_unlink(sibling);

    let old_next: *mut cmark_node = (*node).next;

    // Insert 'sibling' between 'node' and 'old_next'.
    if !old_next.is_null() {
        (*old_next).prev = sibling;
    }
    (*sibling).next = old_next;
    (*sibling).prev = node;
    (*node).next = sibling;

    // Set new parent.
    let parent: *mut cmark_node = (*node).parent;
    (*sibling).parent = parent;

    // Adjust last_child of parent if inserted as last child.
    if !parent.is_null() && old_next.is_null() {
        (*parent).last_child = sibling;
    }

    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_replace(oldnode: *mut cmark_node, newnode: *mut cmark_node) -> i32 {
    if cmark_node_insert_before(oldnode, newnode) == 0 {
        return 0;
    }
    cmark_node_unlink(oldnode);
    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_prepend_child(node: *mut cmark_node, child: *mut cmark_node) -> i32 {
    if !S_can_contain(node, child) {
        return 0;
    }

    S_node_unlink(child);

    let old_first_child: *mut cmark_node = (*node).first_child;

    (*child).next = old_first_child;
    (*child).prev = std::ptr::null_mut();
    (*child).parent = node;
    (*node).first_child = child;

    if !old_first_child.is_null() {
        (*old_first_child).prev = child;
    } else {
        // Also set last_child if node previously had no children.
        (*node).last_child = child;
    }

    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_append_child(node: *mut cmark_node, child: *mut cmark_node) -> i32 {
    if !S_can_contain(node, child) {
        return 0;
    }

    S_node_unlink(child);

    let old_last_child: *mut cmark_node = (*node).last_child;

    (*child).next = std::ptr::null_mut();
    (*child).prev = old_last_child;
    (*child).parent = node;
    (*node).last_child = child;

    if !old_last_child.is_null() {
        (*old_last_child).next = child;
    } else {
        // Also set first_child if node previously had no children.
        (*node).first_child = child;
    }

    1
}

unsafe fn S_print_error(out: *mut FILE, node: *mut cmark_node, elem: *const c_char) {
    if out.is_null() {
        return;
    }
    // fprintf(out, "Invalid '%s' in node type %s at %d:%d\n", ...)
    let mut msg: Vec<u8> = Vec::new();
    msg.extend_from_slice(b"Invalid '");
    msg.extend_from_slice(std::slice::from_raw_parts(elem as *const u8, strlen(elem)));
    msg.extend_from_slice(b"' in node type ");
    let ts = cmark_node_get_type_string(node);
    msg.extend_from_slice(std::slice::from_raw_parts(ts as *const u8, strlen(ts)));
    msg.extend_from_slice(format!(" at {}:{}\n", (*node).start_line, (*node).start_column).as_bytes());
    fwrite(msg.as_ptr() as *const c_void, 1, msg.len(), out);
}

#[no_mangle]
pub unsafe extern "C" fn cmark_node_check(node: *mut cmark_node, out: *mut FILE) -> i32 {
    let mut cur: *mut cmark_node;
    let mut errors: i32 = 0;

    if node.is_null() {
        return 0;
    }

    cur = node;
    'outer: loop {
        if !(*cur).first_child.is_null() {
            if !(*(*cur).first_child).prev.is_null() {
                S_print_error(out, (*cur).first_child, b"prev\0".as_ptr() as *const c_char);
                (*(*cur).first_child).prev = std::ptr::null_mut();
                errors += 1;
            }
            if (*(*cur).first_child).parent != cur {
                S_print_error(out, (*cur).first_child, b"parent\0".as_ptr() as *const c_char);
                (*(*cur).first_child).parent = cur;
                errors += 1;
            }
            cur = (*cur).first_child;
            continue;
        }

        // next_sibling:
        loop {
            if cur == node {
                break 'outer;
            }
            if !(*cur).next.is_null() {
                if (*(*cur).next).prev != cur {
                    S_print_error(out, (*cur).next, b"prev\0".as_ptr() as *const c_char);
                    (*(*cur).next).prev = cur;
                    errors += 1;
                }
                if (*(*cur).next).parent != (*cur).parent {
                    S_print_error(out, (*cur).next, b"parent\0".as_ptr() as *const c_char);
                    (*(*cur).next).parent = (*cur).parent;
                    errors += 1;
                }
                cur = (*cur).next;
                continue 'outer;
            }

            if (*(*cur).parent).last_child != cur {
                S_print_error(out, (*cur).parent, b"last_child\0".as_ptr() as *const c_char);
                (*(*cur).parent).last_child = cur;
                errors += 1;
            }
            cur = (*cur).parent;
            // goto next_sibling;
        }
    }

    errors
}

#[cfg(test)]
mod tests {
    use crate::*;
    use std::ffi::CStr;

    unsafe fn lit(n: *mut cmark_node) -> String {
        CStr::from_ptr(cmark_node_get_literal(n)).to_str().unwrap().to_string()
    }

    #[test]
    fn layout() {
        // as node.h lays it out on LP64 (checked against the C with offsetof)
        assert_eq!(std::mem::size_of::<cmark_node>(), 112);
        assert_eq!(std::mem::size_of::<cmark_list>(), 16);
        assert_eq!(std::mem::size_of::<cmark_code>(), 16);
        assert_eq!(std::mem::size_of::<cmark_iter>(), 48);
        assert_eq!(std::mem::size_of::<cmark_renderer>(), 96);
    }

    #[test]
    fn build_walk_consolidate() {
        unsafe {
            let doc = cmark_node_new(CMARK_NODE_DOCUMENT);
            let para = cmark_node_new(CMARK_NODE_PARAGRAPH);
            let t1 = cmark_node_new(CMARK_NODE_TEXT);
            let t2 = cmark_node_new(CMARK_NODE_TEXT);
            let em = cmark_node_new(CMARK_NODE_EMPH);
            let t3 = cmark_node_new(CMARK_NODE_TEXT);
            cmark_node_set_literal(t1, b"one \0".as_ptr() as *const _);
            cmark_node_set_literal(t2, b"two\0".as_ptr() as *const _);
            cmark_node_set_literal(t3, b"three\0".as_ptr() as *const _);
            assert_eq!(cmark_node_append_child(doc, para), 1);
            assert_eq!(cmark_node_append_child(para, t2), 1);
            assert_eq!(cmark_node_prepend_child(para, t1), 1);
            assert_eq!(cmark_node_insert_after(t2, em), 1);
            assert_eq!(cmark_node_append_child(em, t3), 1);
            assert_eq!(cmark_node_append_child(t3, em), 0);
            assert_eq!(cmark_node_append_child(em, para), 0);
            assert_eq!(cmark_node_append_child(para, doc), 0);
            assert_eq!(cmark_node_check(doc, std::ptr::null_mut()), 0);

            let mut seen = String::new();
            let iter = cmark_iter_new(doc);
            loop {
                let ev = cmark_iter_next(iter);
                if ev == CMARK_EVENT_DONE {
                    break;
                }
                let n = cmark_iter_get_node(iter);
                seen.push_str(if ev == CMARK_EVENT_ENTER { "+" } else { "-" });
                seen.push_str(CStr::from_ptr(cmark_node_get_type_string(n)).to_str().unwrap());
                seen.push(' ');
            }
            cmark_iter_free(iter);
            assert_eq!(
                seen,
                "+document +paragraph +text +text +emph +text -emph -paragraph -document "
            );

            cmark_consolidate_text_nodes(doc);
            assert_eq!(lit(cmark_node_first_child(para)), "one two");
            assert_eq!(cmark_node_next(cmark_node_first_child(para)), em);

            (*t3).prev = t1; // corrupt, then let cmark_node_check repair it
            assert_eq!(cmark_node_check(doc, std::ptr::null_mut()), 1);
            assert!((*t3).prev.is_null());
            cmark_node_free(doc);
        }
    }
}
