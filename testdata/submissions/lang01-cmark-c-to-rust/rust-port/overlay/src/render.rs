//! render.h + render.c: the shared machinery of the text renderers
//! (commonmark, man, latex): line wrapping, prefixes, escaping dispatch.
use crate::*;
use std::os::raw::{c_char, c_void};

extern "C" {
    fn strlen(s: *const c_char) -> usize;
}

pub type cmark_escaping = u32;
pub const LITERAL: cmark_escaping = 0;
pub const NORMAL: cmark_escaping = 1;
pub const TITLE: cmark_escaping = 2;
pub const URL: cmark_escaping = 3;

#[repr(C)]
pub struct block_number {
    pub number: i32,
    pub parent: *mut block_number,
}

#[repr(C)]
pub struct cmark_renderer {
    pub options: i32,
    pub mem: *mut cmark_mem,
    pub buffer: *mut cmark_strbuf,
    pub prefix: *mut cmark_strbuf,
    pub column: i32,
    pub width: i32,
    pub need_cr: i32,
    pub last_breakable: bufsize_t,
    pub begin_line: bool,
    pub begin_content: bool,
    pub no_linebreaks: bool,
    pub in_tight_list_item: bool,
    pub block_number_in_list_item: *mut block_number,
    pub outc: unsafe fn(*mut cmark_renderer, cmark_escaping, i32, u8),
    pub cr: unsafe fn(*mut cmark_renderer),
    pub blankline: unsafe fn(*mut cmark_renderer),
    pub out: unsafe fn(*mut cmark_renderer, *const c_char, bool, cmark_escaping),
}

#[inline]
unsafe fn S_cr(renderer: *mut cmark_renderer) {
    if (*renderer).need_cr < 1 {
        (*renderer).need_cr = 1;
    }
}

#[inline]
unsafe fn S_blankline(renderer: *mut cmark_renderer) {
    if (*renderer).need_cr < 2 {
        (*renderer).need_cr = 2;
    }
}

unsafe fn S_out(renderer: *mut cmark_renderer, source: *const c_char, mut wrap: bool, escape: cmark_escaping) {
    let length: i32 = strlen(source) as i32;
    let src_u8 = source as *const u8;
    let mut nextc: u8;
    let mut c: i32 = 0;
    let mut i: i32 = 0;
    let mut last_nonspace: i32;
    let mut len: i32;
    let mut k: i32 = (*(*renderer).buffer).size - 1;

    wrap = wrap && !(*renderer).no_linebreaks;

    if (*renderer).in_tight_list_item && (*renderer).need_cr > 1 {
        (*renderer).need_cr = 1;
    }
    while (*renderer).need_cr != 0 {
        if k < 0 || *(*(*renderer).buffer).ptr.offset(k as isize) == b'\n' {
            k -= 1;
        } else {
            cmark_strbuf_putc((*renderer).buffer, b'\n' as i32);
            if (*renderer).need_cr > 1 {
                cmark_strbuf_put(
                    (*renderer).buffer,
                    (*(*renderer).prefix).ptr,
                    (*(*renderer).prefix).size,
                );
            }
        }
        (*renderer).column = 0;
        (*renderer).last_breakable = 0;
        (*renderer).begin_line = true;
        (*renderer).begin_content = true;
        (*renderer).need_cr -= 1;
    }

    while i < length {
        if (*renderer).begin_line {
            cmark_strbuf_put(
                (*renderer).buffer,
                (*(*renderer).prefix).ptr,
                (*(*renderer).prefix).size,
            );
            // note: this assumes prefix is ascii:
            (*renderer).column = (*(*renderer).prefix).size;
        }

        len = cmark_utf8proc_iterate(src_u8.offset(i as isize), length - i, &mut c);
        if len == -1 {
            // error condition
            return; // return without rendering rest of string
        }
        nextc = *src_u8.offset((i + len) as isize);
        if c == 32 && wrap {
            if !(*renderer).begin_line {
                last_nonspace = (*(*renderer).buffer).size;
                cmark_strbuf_putc((*renderer).buffer, b' ' as i32);
                (*renderer).column += 1;
                (*renderer).begin_line = false;
                (*renderer).begin_content = false;
                // skip following spaces
                while *source.offset((i + 1) as isize) == b' ' as c_char {
                    i += 1;
                }
                // We don't allow breaks that make a digit the first character
                // because this causes problems with commonmark output.
                if cmark_isdigit(*source.offset((i + 1) as isize)) == 0 {
                    (*renderer).last_breakable = last_nonspace;
                }
            }
        } else if escape == LITERAL {
            if c == 10 {
                cmark_strbuf_putc((*renderer).buffer, b'\n' as i32);
                (*renderer).column = 0;
                (*renderer).begin_line = true;
                (*renderer).begin_content = true;
                (*renderer).last_breakable = 0;
            } else {
                cmark_render_code_point(renderer, c as u32);
                (*renderer).begin_line = false;
                // we don't set 'begin_content' to false til we've
                // finished parsing a digit.  Reason:  in commonmark
                // we need to escape a potential list marker after
                // a digit:
                (*renderer).begin_content =
                    (*renderer).begin_content && cmark_isdigit(c as c_char) == 1;
            }
        } else {
            ((*renderer).outc)(renderer, escape, c, nextc);
            (*renderer).begin_line = false;
            (*renderer).begin_content = (*renderer).begin_content && cmark_isdigit(c as c_char) == 1;
        }

        // If adding the character went beyond width, look for an
        // earlier place where the line could be broken:
        if (*renderer).width > 0
            && (*renderer).column > (*renderer).width
            && !(*renderer).begin_line
            && (*renderer).last_breakable > 0
        {
            // copy from last_breakable to remainder
            let src: *mut u8 = (*(*renderer).buffer)
                .ptr
                .offset(((*renderer).last_breakable + 1) as isize);
            let remainder_len: bufsize_t =
                (*(*renderer).buffer).size - (*renderer).last_breakable - 1;
            let remainder: *mut u8 =
                ((*(*renderer).mem).realloc)(std::ptr::null_mut(), remainder_len as usize) as *mut u8;
            std::ptr::copy_nonoverlapping(src, remainder, remainder_len as usize);
            // truncate at last_breakable
            cmark_strbuf_truncate((*renderer).buffer, (*renderer).last_breakable);
            // add newline, prefix, and remainder
            cmark_strbuf_putc((*renderer).buffer, b'\n' as i32);
            cmark_strbuf_put(
                (*renderer).buffer,
                (*(*renderer).prefix).ptr,
                (*(*renderer).prefix).size,
            );
            cmark_strbuf_put((*renderer).buffer, remainder, remainder_len);
            (*renderer).column = (*(*renderer).prefix).size + remainder_len;
            ((*(*renderer).mem).free)(remainder as *mut c_void);
            (*renderer).last_breakable = 0;
            (*renderer).begin_line = false;
            (*renderer).begin_content = false;
        }

        i += len;
    }
}

// Assumes no newlines, assumes ascii content:
pub unsafe fn cmark_render_ascii(renderer: *mut cmark_renderer, s: *const c_char) {
    let origsize: i32 = (*(*renderer).buffer).size;
    cmark_strbuf_puts((*renderer).buffer, s);
    (*renderer).column += (*(*renderer).buffer).size - origsize;
}

pub unsafe fn cmark_render_code_point(renderer: *mut cmark_renderer, c: u32) {
    cmark_utf8proc_encode_char(c as i32, (*renderer).buffer);
    (*renderer).column += 1;
}

pub unsafe fn cmark_render(
    root: *mut cmark_node,
    options: i32,
    width: i32,
    outc: unsafe fn(*mut cmark_renderer, cmark_escaping, i32, u8),
    render_node: unsafe fn(*mut cmark_renderer, *mut cmark_node, cmark_event_type, i32) -> i32,
) -> *mut c_char {
    let mem: *mut cmark_mem = (*root).mem;
    let mut pref: cmark_strbuf = CMARK_BUF_INIT(mem);
    let mut buf: cmark_strbuf = CMARK_BUF_INIT(mem);
    let mut cur: *mut cmark_node;
    let mut ev_type: cmark_event_type;
    let result: *mut c_char;
    let iter: *mut cmark_iter = cmark_iter_new(root);

    let mut renderer = cmark_renderer {
        options: options,
        mem: mem,
        buffer: &mut buf,
        prefix: &mut pref,
        column: 0,
        width: width,
        need_cr: 0,
        last_breakable: 0,
        begin_line: true,
        begin_content: true,
        no_linebreaks: false,
        in_tight_list_item: false,
        block_number_in_list_item: std::ptr::null_mut(),
        outc: outc,
        cr: S_cr,
        blankline: S_blankline,
        out: S_out,
    };

    loop {
        ev_type = cmark_iter_next(iter);
        if ev_type == CMARK_EVENT_DONE {
            break;
        }
        cur = cmark_iter_get_node(iter);
        if render_node(&mut renderer, cur, ev_type, options) == 0 {
            // a false value causes us to skip processing
            // the node's contents.  this is used for
            // autolinks.
            cmark_iter_reset(iter, cur, CMARK_EVENT_EXIT);
        }
    }

    // ensure final newline
    if (*renderer.buffer).size == 0
        || *(*renderer.buffer).ptr.offset(((*renderer.buffer).size - 1) as isize) != b'\n'
    {
        cmark_strbuf_putc(renderer.buffer, b'\n' as i32);
    }

    result = cmark_strbuf_detach(renderer.buffer) as *mut c_char;

    cmark_iter_free(iter);
    cmark_strbuf_free(renderer.prefix);
    cmark_strbuf_free(renderer.buffer);

    result
}
