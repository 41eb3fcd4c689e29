//! buffer.h + buffer.c: growable byte buffers.
#[allow(unused_imports)]
use crate::*;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;

extern "C" {
    fn strlen(s: *const c_char) -> usize;
    fn memcmp(s1: *const c_void, s2: *const c_void, n: usize) -> c_int;
    fn memchr(s: *const c_void, c: c_int, n: usize) -> *mut c_void;
    fn abort() -> !;
}

pub type bufsize_t = i32;

/// Not in 0.30.2's buffer.h; provided as the largest bufsize_t (INT32_MAX).
pub const BUFSIZE_MAX: bufsize_t = i32::MAX;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_strbuf {
    pub mem: *mut cmark_mem,
    pub ptr: *mut u8,
    pub asize: bufsize_t,
    pub size: bufsize_t,
}

/* Used as default value for cmark_strbuf->ptr so that people can always
 * assume ptr is non-NULL and zero terminated even for new cmark_strbufs.
 */
pub static mut cmark_strbuf__initbuf: [u8; 1] = [0];

#[inline]
pub unsafe fn CMARK_BUF_INIT(mem: *mut cmark_mem) -> cmark_strbuf {
    cmark_strbuf {
        mem,
        ptr: ptr::addr_of_mut!(cmark_strbuf__initbuf) as *mut u8,
        asize: 0,
        size: 0,
    }
}

#[inline]
pub unsafe fn cmark_strbuf_at(buf: *const cmark_strbuf, n: bufsize_t) -> u8 {
    *(*buf).ptr.offset(n as isize)
}

#[inline]
fn MIN(x: bufsize_t, y: bufsize_t) -> bufsize_t {
    if x < y {
        x
    } else {
        y
    }
}

#[inline]
unsafe fn initbuf_ptr() -> *mut u8 {
    ptr::addr_of_mut!(cmark_strbuf__initbuf) as *mut u8
}

pub unsafe fn cmark_strbuf_init(mem: *mut cmark_mem, buf: *mut cmark_strbuf, initial_size: bufsize_t) {
    (*buf).mem = mem;
    (*buf).asize = 0;
    (*buf).size = 0;
    (*buf).ptr = initbuf_ptr();

    if initial_size > 0 {
        cmark_strbuf_grow(buf, initial_size);
    }
}

#[inline]
unsafe fn S_strbuf_grow_by(buf: *mut cmark_strbuf, add: bufsize_t) {
    cmark_strbuf_grow(buf, (*buf).size.wrapping_add(add));
}

pub unsafe fn cmark_strbuf_grow(buf: *mut cmark_strbuf, target_size: bufsize_t) {
    // assert(target_size > 0); -- compiled out (NDEBUG), as in State A

    if target_size < (*buf).asize {
        return;
    }

    if target_size > (i32::MAX / 2) as bufsize_t {
        use std::io::Write;
        let _ = write!(
            std::io::stderr(),
            "[cmark] cmark_strbuf_grow requests buffer with size > {}, aborting\n",
            i32::MAX / 2
        );
        abort();
    }

    /* Oversize the buffer by 50% to guarantee amortized linear time
     * complexity on append operations. */
    let mut new_size: bufsize_t = target_size + target_size / 2;
    new_size += 1;
    new_size = (new_size + 7) & !7;

    (*buf).ptr = ((*(*buf).mem).realloc)(
        if (*buf).asize != 0 { (*buf).ptr as *mut c_void } else { ptr::null_mut() },
        new_size as usize,
    ) as *mut u8;
    (*buf).asize = new_size;
}

pub unsafe fn cmark_strbuf_len(buf: *const cmark_strbuf) -> bufsize_t {
    (*buf).size
}

pub unsafe fn cmark_strbuf_free(buf: *mut cmark_strbuf) {
    if buf.is_null() {
        return;
    }

    if (*buf).ptr != initbuf_ptr() {
        ((*(*buf).mem).free)((*buf).ptr as *mut c_void);
    }

    cmark_strbuf_init((*buf).mem, buf, 0);
}

pub unsafe fn cmark_strbuf_clear(buf: *mut cmark_strbuf) {
    (*buf).size = 0;

    if (*buf).asize > 0 {
        *(*buf).ptr = b'\0';
    }
}

pub unsafe fn cmark_strbuf_set(buf: *mut cmark_strbuf, data: *const u8, len: bufsize_t) {
    if len <= 0 || data.is_null() {
        cmark_strbuf_clear(buf);
    } else {
        if data != (*buf).ptr as *const u8 {
            if len >= (*buf).asize {
                cmark_strbuf_grow(buf, len);
            }
            ptr::copy(data, (*buf).ptr, len as usize);
        }
        (*buf).size = len;
        *(*buf).ptr.offset((*buf).size as isize) = b'\0';
    }
}

pub unsafe fn cmark_strbuf_sets(buf: *mut cmark_strbuf, string: *const c_char) {
    cmark_strbuf_set(
        buf,
        string as *const u8,
        if !string.is_null() { strlen(string) as bufsize_t } else { 0 },
    );
}

pub unsafe fn cmark_strbuf_putc(buf: *mut cmark_strbuf, c: c_int) {
    S_strbuf_grow_by(buf, 1);
    *(*buf).ptr.offset((*buf).size as isize) = (c & 0xFF) as u8;
    (*buf).size += 1;
    *(*buf).ptr.offset((*buf).size as isize) = b'\0';
}

pub unsafe fn cmark_strbuf_put(buf: *mut cmark_strbuf, data: *const u8, len: bufsize_t) {
    if len <= 0 {
        return;
    }

    S_strbuf_grow_by(buf, len);
    ptr::copy(data, (*buf).ptr.offset((*buf).size as isize), len as usize);
    (*buf).size += len;
    *(*buf).ptr.offset((*buf).size as isize) = b'\0';
}

pub unsafe fn cmark_strbuf_puts(buf: *mut cmark_strbuf, string: *const c_char) {
    cmark_strbuf_put(buf, string as *const u8, strlen(string) as bufsize_t);
}

pub unsafe fn cmark_strbuf_copy_cstr(data: *mut c_char, datasize: bufsize_t, buf: *const cmark_strbuf) {
    let mut copylen: bufsize_t;

    // assert(!buf.is_null()); -- compiled out (NDEBUG), as in State A
    if data.is_null() || datasize <= 0 {
        return;
    }

    *data = 0;

    if (*buf).size == 0 || (*buf).asize <= 0 {
        return;
    }

    copylen = (*buf).size;
    if copylen > datasize - 1 {
        copylen = datasize - 1;
    }
    ptr::copy((*buf).ptr as *const c_char, data, copylen as usize);
    *data.offset(copylen as isize) = 0;
}

pub unsafe fn cmark_strbuf_swap(buf_a: *mut cmark_strbuf, buf_b: *mut cmark_strbuf) {
    let t: cmark_strbuf = *buf_a;
    *buf_a = *buf_b;
    *buf_b = t;
}

pub unsafe fn cmark_strbuf_detach(buf: *mut cmark_strbuf) -> *mut u8 {
    let data: *mut u8 = (*buf).ptr;

    if (*buf).asize == 0 {
        /* return an empty string */
        return ((*(*buf).mem).calloc)(1, 1) as *mut u8;
    }

    cmark_strbuf_init((*buf).mem, buf, 0);
    data
}

pub unsafe fn cmark_strbuf_cmp(a: *const cmark_strbuf, b: *const cmark_strbuf) -> c_int {
    let result: c_int = memcmp(
        (*a).ptr as *const c_void,
        (*b).ptr as *const c_void,
        MIN((*a).size, (*b).size) as usize,
    );
    if result != 0 {
        result
    } else if (*a).size < (*b).size {
        -1
    } else if (*a).size > (*b).size {
        1
    } else {
        0
    }
}

pub unsafe fn cmark_strbuf_strchr(buf: *const cmark_strbuf, c: c_int, mut pos: bufsize_t) -> bufsize_t {
    if pos >= (*buf).size {
        return -1;
    }
    if pos < 0 {
        pos = 0;
    }

    let p: *const u8 = memchr(
        (*buf).ptr.offset(pos as isize) as *const c_void,
        c,
        ((*buf).size - pos) as usize,
    ) as *const u8;
    if p.is_null() {
        return -1;
    }

    p.offset_from((*buf).ptr as *const u8) as bufsize_t
}

pub unsafe fn cmark_strbuf_strrchr(buf: *const cmark_strbuf, c: c_int, mut pos: bufsize_t) -> bufsize_t {
    if pos < 0 || (*buf).size == 0 {
        return -1;
    }
    if pos >= (*buf).size {
        pos = (*buf).size - 1;
    }

    let mut i: bufsize_t = pos;
    while i >= 0 {
        if *(*buf).ptr.offset(i as isize) == c as u8 {
            return i;
        }
        i -= 1;
    }

    -1
}

pub unsafe fn cmark_strbuf_truncate(buf: *mut cmark_strbuf, mut len: bufsize_t) {
    if len < 0 {
        len = 0;
    }

    if len < (*buf).size {
        (*buf).size = len;
        *(*buf).ptr.offset((*buf).size as isize) = b'\0';
    }
}

pub unsafe fn cmark_strbuf_drop(buf: *mut cmark_strbuf, mut n: bufsize_t) {
    if n > 0 {
        if n > (*buf).size {
            n = (*buf).size;
        }
        (*buf).size = (*buf).size - n;
        if (*buf).size != 0 {
            ptr::copy((*buf).ptr.offset(n as isize), (*buf).ptr, (*buf).size as usize);
        }

        *(*buf).ptr.offset((*buf).size as isize) = b'\0';
    }
}

pub unsafe fn cmark_strbuf_rtrim(buf: *mut cmark_strbuf) {
    if (*buf).size == 0 {
        return;
    }

    while (*buf).size > 0 {
        if cmark_isspace(*(*buf).ptr.offset(((*buf).size - 1) as isize) as c_char) == 0 {
            break;
        }

        (*buf).size -= 1;
    }

    *(*buf).ptr.offset((*buf).size as isize) = b'\0';
}

pub unsafe fn cmark_strbuf_trim(buf: *mut cmark_strbuf) {
    let mut i: bufsize_t = 0;

    if (*buf).size == 0 {
        return;
    }

    while i < (*buf).size && cmark_isspace(*(*buf).ptr.offset(i as isize) as c_char) != 0 {
        i += 1;
    }

    cmark_strbuf_drop(buf, i);

    cmark_strbuf_rtrim(buf);
}

// Destructively modify string, collapsing consecutive
// space and newline characters into a single space.
pub unsafe fn cmark_strbuf_normalize_whitespace(s: *mut cmark_strbuf) {
    let mut last_char_was_space: bool = false;
    let mut r: bufsize_t = 0;
    let mut w: bufsize_t = 0;

    while r < (*s).size {
        if cmark_isspace(*(*s).ptr.offset(r as isize) as c_char) != 0 {
            if !last_char_was_space {
                *(*s).ptr.offset(w as isize) = b' ';
                w += 1;
                last_char_was_space = true;
            }
        } else {
            *(*s).ptr.offset(w as isize) = *(*s).ptr.offset(r as isize);
            w += 1;
            last_char_was_space = false;
        }
        r += 1;
    }

    cmark_strbuf_truncate(s, w);
}

// Destructively unescape a string: remove backslashes before punctuation chars.
pub unsafe fn cmark_strbuf_unescape(buf: *mut cmark_strbuf) {
    let mut r: bufsize_t = 0;
    let mut w: bufsize_t = 0;

    while r < (*buf).size {
        if *(*buf).ptr.offset(r as isize) == b'\\'
            && cmark_ispunct(*(*buf).ptr.offset((r + 1) as isize) as c_char) != 0
        {
            r += 1;
        }

        *(*buf).ptr.offset(w as isize) = *(*buf).ptr.offset(r as isize);
        w += 1;
        r += 1;
    }

    cmark_strbuf_truncate(buf, w);
}
