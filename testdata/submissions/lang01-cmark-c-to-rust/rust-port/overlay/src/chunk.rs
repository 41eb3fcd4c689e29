//! chunk.h: non-owning byte slices.
#[allow(unused_imports)]
use crate::*;
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn memchr(s: *const c_void, c: c_int, n: usize) -> *mut c_void;
    fn strlen(s: *const c_char) -> usize;
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_chunk {
    pub data: *const u8,
    pub len: bufsize_t,
}

pub const CMARK_CHUNK_EMPTY: cmark_chunk = cmark_chunk {
    data: std::ptr::null(),
    len: 0,
};

#[inline]
pub unsafe fn cmark_chunk_free(c: *mut cmark_chunk) {
    (*c).data = std::ptr::null();
    (*c).len = 0;
}

#[inline]
pub unsafe fn cmark_chunk_ltrim(c: *mut cmark_chunk) {
    while (*c).len != 0 && cmark_isspace(*(*c).data as c_char) != 0 {
        (*c).data = (*c).data.offset(1);
        (*c).len -= 1;
    }
}

#[inline]
pub unsafe fn cmark_chunk_rtrim(c: *mut cmark_chunk) {
    while (*c).len > 0 {
        if cmark_isspace(*(*c).data.offset(((*c).len - 1) as isize) as c_char) == 0 {
            break;
        }

        (*c).len -= 1;
    }
}

#[inline]
pub unsafe fn cmark_chunk_trim(c: *mut cmark_chunk) {
    cmark_chunk_ltrim(c);
    cmark_chunk_rtrim(c);
}

#[inline]
pub unsafe fn cmark_chunk_strchr(ch: *mut cmark_chunk, c: c_int, offset: bufsize_t) -> bufsize_t {
    let p: *const u8 = memchr(
        (*ch).data.offset(offset as isize) as *const c_void,
        c,
        ((*ch).len - offset) as usize,
    ) as *const u8;
    if !p.is_null() {
        p.offset_from((*ch).data) as bufsize_t
    } else {
        (*ch).len
    }
}

#[inline]
pub unsafe fn cmark_chunk_literal(data: *const c_char) -> cmark_chunk {
    let len: bufsize_t = if !data.is_null() { strlen(data) as bufsize_t } else { 0 };
    let c = cmark_chunk {
        data: data as *const u8,
        len,
    };
    c
}

#[inline]
pub unsafe fn cmark_chunk_dup(ch: *const cmark_chunk, pos: bufsize_t, len: bufsize_t) -> cmark_chunk {
    let c = cmark_chunk {
        data: (*ch).data.offset(pos as isize),
        len,
    };
    c
}
