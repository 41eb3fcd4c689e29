//! cmark_ctype.h + cmark_ctype.c: locale-independent character classes.
#[allow(unused_imports)]
use crate::*;
use std::os::raw::{c_char, c_int};

/** 1 = space, 2 = punct, 3 = digit, 4 = alpha, 0 = other
 */
static cmark_ctype_class: [u8; 256] = [
    /*      0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f */
    /* 0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0,
    /* 1 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 2 */ 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    /* 3 */ 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2,
    /* 4 */ 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    /* 5 */ 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 2, 2, 2, 2,
    /* 6 */ 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    /* 7 */ 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 2, 2, 2, 0,
    /* 8 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 9 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* a */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* b */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* c */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* d */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* e */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* f */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/**
 * Returns 1 if c is a "whitespace" character as defined by the spec.
 */
pub unsafe fn cmark_isspace(c: c_char) -> c_int {
    (cmark_ctype_class[c as u8 as usize] == 1) as c_int
}

/**
 * Returns 1 if c is an ascii punctuation character.
 */
pub unsafe fn cmark_ispunct(c: c_char) -> c_int {
    (cmark_ctype_class[c as u8 as usize] == 2) as c_int
}

pub unsafe fn cmark_isalnum(c: c_char) -> c_int {
    let result: u8;
    result = cmark_ctype_class[c as u8 as usize];
    (result == 3 || result == 4) as c_int
}

pub unsafe fn cmark_isdigit(c: c_char) -> c_int {
    (cmark_ctype_class[c as u8 as usize] == 3) as c_int
}

pub unsafe fn cmark_isalpha(c: c_char) -> c_int {
    (cmark_ctype_class[c as u8 as usize] == 4) as c_int
}
