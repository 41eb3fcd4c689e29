//! houdini.h + houdini_href_e.c + houdini_html_e.c + houdini_html_u.c:
//! HTML / URL escaping and entity unescaping.
#[allow(unused_imports)]
use crate::*;
use std::os::raw::{c_char, c_int};

extern "C" {
    fn strchr(s: *const c_char, c: c_int) -> *mut c_char;
    fn strncmp(s1: *const c_char, s2: *const c_char, n: usize) -> c_int;
    fn strlen(s: *const c_char) -> usize;
}

// ---- houdini.h ----
#[inline]
pub fn likely(x: bool) -> bool {
    x
}

#[inline]
pub fn unlikely(x: bool) -> bool {
    x
}

/*
 * Helper _isdigit methods -- do not trust the current locale
 * */
#[inline]
pub unsafe fn _isxdigit(c: c_int) -> bool {
    !strchr(b"0123456789ABCDEFabcdef\0".as_ptr() as *const c_char, c).is_null()
}

#[inline]
pub fn _isdigit(c: c_int) -> bool {
    c >= b'0' as c_int && c <= b'9' as c_int
}

#[inline]
pub fn HOUDINI_ESCAPED_SIZE(x: bufsize_t) -> bufsize_t {
    (x * 12) / 10
}

#[inline]
pub fn HOUDINI_UNESCAPED_SIZE(x: bufsize_t) -> bufsize_t {
    x
}

// ---- houdini_href_e.c ----
/*
 * The following characters will not be escaped:
 *
 *              -_.+!*'(),%#@?=;:/,+&$~ alphanum
 *
 * Note that this character set is the addition of:
 *
 *      - The characters which are safe to be in an URL
 *      - The characters which are *not* safe to be in
 *      an URL because they are RESERVED characters.
 *
 * We assume (lazily) that any RESERVED char that
 * appears inside an URL is actually meant to
 * have its native function (i.e. as an URL
 * component/separator) and hence needs no escaping.
 *
 * There are two exceptions: the characters & (amp)
 * and ' (single quote) do not appear in the table.
 * They are meant to appear in the URL as components,
 * yet they require special HTML-entity escaping
 * to generate valid HTML markup.
 *
 * All other characters will be escaped to %XX.
 *
 */
static HREF_SAFE: [c_char; 256] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

pub unsafe fn houdini_escape_href(ob: *mut cmark_strbuf, src: *const u8, size: bufsize_t) -> c_int {
    static hex_chars: &[u8; 17] = b"0123456789ABCDEF\0";
    let mut i: bufsize_t = 0;
    let mut org: bufsize_t;
    let mut hex_str: [u8; 3] = [0; 3];

    hex_str[0] = b'%';

    while i < size {
        org = i;
        while i < size && HREF_SAFE[*src.offset(i as isize) as usize] != 0 {
            i += 1;
        }

        if likely(i > org) {
            cmark_strbuf_put(ob, src.offset(org as isize), i - org);
        }

        /* escaping */
        if i >= size {
            break;
        }

        let ch: u8 = *src.offset(i as isize);
        match ch {
            /* amp appears all the time in URLs, but needs
             * HTML-entity escaping to be inside an href */
            b'&' => {
                cmark_strbuf_puts(ob, b"&amp;\0".as_ptr() as *const c_char);
            }

            /* the single quote is a valid URL character
             * according to the standard; it needs HTML
             * entity escaping too */
            b'\'' => {
                cmark_strbuf_puts(ob, b"&#x27;\0".as_ptr() as *const c_char);
            }

            /* every other character goes with a %XX escaping */
            _ => {
                hex_str[1] = hex_chars[((ch >> 4) & 0xF) as usize];
                hex_str[2] = hex_chars[(ch & 0xF) as usize];
                cmark_strbuf_put(ob, hex_str.as_ptr(), 3);
            }
        }

        i += 1;
    }

    1
}

// ---- houdini_html_e.c ----
/**
 * According to the OWASP rules:
 *
 * & --> &amp;
 * < --> &lt;
 * > --> &gt;
 * " --> &quot;
 * ' --> &#x27;     &apos; is not recommended
 * / --> &#x2F;     forward slash is included as it helps end an HTML entity
 *
 */
static HTML_ESCAPE_TABLE: [c_char; 256] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 4,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

static HTML_ESCAPES: [&[u8]; 7] = [
    b"\0",
    b"&quot;\0",
    b"&amp;\0",
    b"&#39;\0",
    b"&#47;\0",
    b"&lt;\0",
    b"&gt;\0",
];

pub unsafe fn houdini_escape_html0(ob: *mut cmark_strbuf, src: *const u8, size: bufsize_t, secure: c_int) -> c_int {
    let mut i: bufsize_t = 0;
    let mut org: bufsize_t;
    let mut esc: bufsize_t = 0;

    while i < size {
        org = i;
        while i < size && {
            esc = HTML_ESCAPE_TABLE[*src.offset(i as isize) as usize] as bufsize_t;
            esc == 0
        } {
            i += 1;
        }

        if i > org {
            cmark_strbuf_put(ob, src.offset(org as isize), i - org);
        }

        /* escaping */
        if unlikely(i >= size) {
            break;
        }

        /* The forward slash is only escaped in secure mode */
        let ch: u8 = *src.offset(i as isize);
        if (ch == b'/' || ch == b'\'') && secure == 0 {
            cmark_strbuf_putc(ob, ch as c_int);
        } else {
            cmark_strbuf_puts(ob, HTML_ESCAPES[esc as usize].as_ptr() as *const c_char);
        }

        i += 1;
    }

    1
}

pub unsafe fn houdini_escape_html(ob: *mut cmark_strbuf, src: *const u8, size: bufsize_t) -> c_int {
    houdini_escape_html0(ob, src, size, 1)
}

// ---- houdini_html_u.c ----
/* Binary tree lookup code for entities added by JGM */

unsafe fn S_lookup(i: c_int, low: c_int, hi: c_int, s: *const u8, len: c_int) -> *const u8 {
    let mut j: c_int;
    let cmp: c_int = strncmp(
        s as *const c_char,
        cmark_entities[i as usize].entity as *const c_char,
        len as usize,
    );
    // C reads cmark_entities[i].entity[len]; when `s` holds a NUL inside its
    // first `len` bytes, strncmp can return 0 with len past the entity's
    // terminator, and C reads beyond the string literal (undefined; it cannot
    // happen through the parser, which replaces NUL bytes).  Here such a read
    // counts as a non-NUL byte (no match), which is what it almost always is
    // in C, where the next entity name follows in memory.
    let entity: *const u8 = cmark_entities[i as usize].entity;
    if cmp == 0 && (len as usize) <= strlen(entity as *const c_char) && *entity.offset(len as isize) == 0 {
        cmark_entities[i as usize].bytes.as_ptr()
    } else if cmp <= 0 && i > low {
        j = i - ((i - low) / 2);
        if j == i {
            j -= 1;
        }
        S_lookup(j, low, i - 1, s, len)
    } else if cmp > 0 && i < hi {
        j = i + ((hi - i) / 2);
        if j == i {
            j += 1;
        }
        S_lookup(j, i + 1, hi, s, len)
    } else {
        std::ptr::null()
    }
}

unsafe fn S_lookup_entity(s: *const u8, len: c_int) -> *const u8 {
    S_lookup(CMARK_NUM_ENTITIES / 2, 0, CMARK_NUM_ENTITIES - 1, s, len)
}

pub unsafe fn houdini_unescape_ent(ob: *mut cmark_strbuf, src: *const u8, mut size: bufsize_t) -> bufsize_t {
    let mut i: bufsize_t = 0;
    let at = |k: bufsize_t| -> u8 { *src.offset(k as isize) };

    if size >= 3 && at(0) == b'#' {
        let mut codepoint: c_int = 0;
        let mut num_digits: c_int = 0;
        let mut max_digits: c_int = 7;

        if _isdigit(at(1) as c_int) {
            i = 1;
            while i < size && _isdigit(at(i) as c_int) {
                codepoint = (codepoint * 10) + (at(i) as c_int - b'0' as c_int);

                if codepoint >= 0x110000 {
                    // Keep counting digits but
                    // avoid integer overflow.
                    codepoint = 0x110000;
                }
                i += 1;
            }

            num_digits = i - 1;
            max_digits = 7;
        } else if at(1) == b'x' || at(1) == b'X' {
            i = 2;
            while i < size && _isxdigit(at(i) as c_int) {
                codepoint = (codepoint * 16) + ((at(i) as c_int | 32) % 39 - 9);

                if codepoint >= 0x110000 {
                    // Keep counting digits but
                    // avoid integer overflow.
                    codepoint = 0x110000;
                }
                i += 1;
            }

            num_digits = i - 2;
            max_digits = 6;
        }

        if num_digits >= 1 && num_digits <= max_digits && i < size && at(i) == b';' {
            if codepoint == 0 || (codepoint >= 0xD800 && codepoint < 0xE000) || codepoint >= 0x110000 {
                codepoint = 0xFFFD;
            }
            cmark_utf8proc_encode_char(codepoint, ob);
            return i + 1;
        }
    } else {
        if size > CMARK_ENTITY_MAX_LENGTH {
            size = CMARK_ENTITY_MAX_LENGTH;
        }

        i = CMARK_ENTITY_MIN_LENGTH;
        while i < size {
            if at(i) == b' ' {
                break;
            }

            if at(i) == b';' {
                let entity: *const u8 = S_lookup_entity(src, i);

                if !entity.is_null() {
                    cmark_strbuf_puts(ob, entity as *const c_char);
                    return i + 1;
                }

                break;
            }
            i += 1;
        }
    }

    0
}

pub unsafe fn houdini_unescape_html(ob: *mut cmark_strbuf, src: *const u8, size: bufsize_t) -> c_int {
    let mut i: bufsize_t = 0;
    let mut org: bufsize_t;
    let mut ent: bufsize_t;

    while i < size {
        org = i;
        while i < size && *src.offset(i as isize) != b'&' {
            i += 1;
        }

        if likely(i > org) {
            if unlikely(org == 0) {
                if i >= size {
                    return 0;
                }

                cmark_strbuf_grow(ob, HOUDINI_UNESCAPED_SIZE(size));
            }

            cmark_strbuf_put(ob, src.offset(org as isize), i - org);
        }

        /* escaping */
        if i >= size {
            break;
        }

        i += 1;

        ent = houdini_unescape_ent(ob, src.offset(i as isize), size - i);
        i += ent;

        /* not really an entity */
        if ent == 0 {
            cmark_strbuf_putc(ob, b'&' as c_int);
        }
    }

    1
}

pub unsafe fn houdini_unescape_html_f(ob: *mut cmark_strbuf, src: *const u8, size: bufsize_t) {
    if houdini_unescape_html(ob, src, size) == 0 {
        cmark_strbuf_put(ob, src, size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe fn run(f: unsafe fn(*mut cmark_strbuf, *const u8, bufsize_t) -> c_int, s: &[u8]) -> (c_int, Vec<u8>) {
        let mut b = CMARK_BUF_INIT(cmark_get_default_mem_allocator());
        let r = f(&mut b, s.as_ptr(), s.len() as bufsize_t);
        let v = std::slice::from_raw_parts(b.ptr, b.size as usize).to_vec();
        cmark_strbuf_free(&mut b);
        (r, v)
    }

    #[test]
    fn escape_and_unescape() {
        unsafe {
            assert_eq!(run(houdini_escape_html, b"<a href=\"x\">&'/</a>").1, b"&lt;a href=&quot;x&quot;&gt;&amp;&#39;&#47;&lt;&#47;a&gt;".to_vec());
            assert_eq!(run(houdini_escape_href, b"/a b&c'\xc3\xa9[").1, b"/a%20b&amp;c&#x27;%C3%A9%5B".to_vec());
            assert_eq!(run(houdini_unescape_html, b"plain"), (0, b"".to_vec()));
            assert_eq!(run(houdini_unescape_html, b"&amp;&AElig;&#65;&#x42;&#0;&#xD800;&bogus;&ngE;&#12345678;").1,
                       "&Æ\u{41}\u{42}\u{FFFD}\u{FFFD}&bogus;\u{2267}\u{338}&#12345678;".as_bytes().to_vec());
            // strchr-based _isxdigit accepts NUL, as in C
            assert_eq!(run(houdini_unescape_html, b"&#x\0;").1, "\u{17}".as_bytes().to_vec());
        }
    }

    #[test]
    fn case_fold() {
        unsafe {
            let mut b = CMARK_BUF_INIT(cmark_get_default_mem_allocator());
            let s = "ABC \u{1E9E}\u{DF}\u{130}\u{3A3}".as_bytes();
            cmark_utf8proc_case_fold(&mut b, s.as_ptr(), s.len() as bufsize_t);
            let v = std::slice::from_raw_parts(b.ptr, b.size as usize).to_vec();
            cmark_strbuf_free(&mut b);
            assert_eq!(v, "abc ssssi\u{307}\u{3C3}".as_bytes().to_vec());
        }
    }
}
