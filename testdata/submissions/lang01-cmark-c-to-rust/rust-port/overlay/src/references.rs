//! references.h + references.c: the link reference definition map.
#[allow(unused_imports)]
use crate::*;
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn strlen(s: *const c_char) -> usize;
    fn strcmp(s1: *const c_char, s2: *const c_char) -> c_int;
    fn qsort(
        base: *mut c_void,
        nmemb: usize,
        size: usize,
        compar: Option<unsafe extern "C" fn(*const c_void, *const c_void) -> c_int>,
    );
    fn bsearch(
        key: *const c_void,
        base: *const c_void,
        nmemb: usize,
        size: usize,
        compar: Option<unsafe extern "C" fn(*const c_void, *const c_void) -> c_int>,
    ) -> *mut c_void;
}

#[repr(C)]
pub struct cmark_reference {
    pub next: *mut cmark_reference,
    pub label: *mut u8,
    pub url: *mut u8,
    pub title: *mut u8,
    pub age: u32,
    pub size: u32,
}

#[repr(C)]
pub struct cmark_reference_map {
    pub mem: *mut cmark_mem,
    pub refs: *mut cmark_reference,
    pub sorted: *mut *mut cmark_reference,
    pub size: u32,
    pub ref_size: u32,
    pub max_ref_size: u32,
}

unsafe fn reference_free(map: *mut cmark_reference_map, ref_: *mut cmark_reference) {
    let mem: *mut cmark_mem = (*map).mem;
    if !ref_.is_null() {
        ((*mem).free)((*ref_).label as *mut c_void);
        ((*mem).free)((*ref_).url as *mut c_void);
        ((*mem).free)((*ref_).title as *mut c_void);
        ((*mem).free)(ref_ as *mut c_void);
    }
}

// normalize reference:  collapse internal whitespace to single space,
// remove leading/trailing whitespace, case fold
// Return NULL if the reference name is actually empty (i.e. composed
// solely from whitespace)
unsafe fn normalize_reference(mem: *mut cmark_mem, ref_: *mut cmark_chunk) -> *mut u8 {
    let mut normalized: cmark_strbuf = CMARK_BUF_INIT(mem);
    let result: *mut u8;

    if ref_.is_null() {
        return std::ptr::null_mut();
    }

    if (*ref_).len == 0 {
        return std::ptr::null_mut();
    }

    cmark_utf8proc_case_fold(&mut normalized, (*ref_).data, (*ref_).len);
    cmark_strbuf_trim(&mut normalized);
    cmark_strbuf_normalize_whitespace(&mut normalized);

    result = cmark_strbuf_detach(&mut normalized);
    // assert(!result.is_null()); -- compiled out (NDEBUG), as in State A

    if *result == b'\0' {
        ((*mem).free)(result as *mut c_void);
        return std::ptr::null_mut();
    }

    result
}

pub unsafe fn cmark_reference_create(
    map: *mut cmark_reference_map,
    label: *mut cmark_chunk,
    url: *mut cmark_chunk,
    title: *mut cmark_chunk,
) {
    let ref_: *mut cmark_reference;
    let reflabel: *mut u8 = normalize_reference((*map).mem, label);

    /* empty reference name, or composed from only whitespace */
    if reflabel.is_null() {
        return;
    }

    // assert((*map).sorted.is_null()); -- compiled out (NDEBUG), as in State A

    ref_ = ((*(*map).mem).calloc)(1, std::mem::size_of::<cmark_reference>()) as *mut cmark_reference;
    (*ref_).label = reflabel;
    (*ref_).url = cmark_clean_url((*map).mem, url);
    (*ref_).title = cmark_clean_title((*map).mem, title);
    (*ref_).age = (*map).size;
    (*ref_).next = (*map).refs;

    if !(*ref_).url.is_null() {
        (*ref_).size = (*ref_).size.wrapping_add(strlen((*ref_).url as *const c_char) as u32);
    }
    if !(*ref_).title.is_null() {
        (*ref_).size = (*ref_).size.wrapping_add(strlen((*ref_).title as *const c_char) as u32);
    }

    (*map).refs = ref_;
    (*map).size += 1;
}

unsafe fn labelcmp(a: *const u8, b: *const u8) -> c_int {
    strcmp(a as *const c_char, b as *const c_char)
}

unsafe extern "C" fn refcmp(p1: *const c_void, p2: *const c_void) -> c_int {
    let r1: *mut cmark_reference = *(p1 as *const *mut cmark_reference);
    let r2: *mut cmark_reference = *(p2 as *const *mut cmark_reference);
    let res: c_int = labelcmp((*r1).label, (*r2).label);
    if res != 0 {
        res
    } else {
        ((*r1).age as c_int).wrapping_sub((*r2).age as c_int)
    }
}

unsafe extern "C" fn refsearch(label: *const c_void, p2: *const c_void) -> c_int {
    let ref_: *mut cmark_reference = *(p2 as *const *mut cmark_reference);
    labelcmp(label as *const u8, (*ref_).label)
}

unsafe fn sort_references(map: *mut cmark_reference_map) {
    let mut i: u32 = 0;
    let mut last: u32 = 0;
    let size: u32 = (*map).size;
    let mut r: *mut cmark_reference = (*map).refs;
    let sorted: *mut *mut cmark_reference;

    sorted = ((*(*map).mem).calloc)(size as usize, std::mem::size_of::<*mut cmark_reference>())
        as *mut *mut cmark_reference;
    while !r.is_null() {
        *sorted.offset(i as isize) = r;
        i += 1;
        r = (*r).next;
    }

    qsort(
        sorted as *mut c_void,
        size as usize,
        std::mem::size_of::<*mut cmark_reference>(),
        Some(refcmp),
    );

    i = 1;
    while i < size {
        if labelcmp((**sorted.offset(i as isize)).label, (**sorted.offset(last as isize)).label) != 0 {
            last += 1;
            *sorted.offset(last as isize) = *sorted.offset(i as isize);
        }
        i += 1;
    }
    (*map).sorted = sorted;
    (*map).size = last + 1;
}

// Returns reference if refmap contains a reference with matching
// label, otherwise NULL.
pub unsafe fn cmark_reference_lookup(map: *mut cmark_reference_map, label: *mut cmark_chunk) -> *mut cmark_reference {
    let ref_: *mut *mut cmark_reference;
    let mut r: *mut cmark_reference = std::ptr::null_mut();
    let norm: *mut u8;

    if (*label).len < 1 || (*label).len > MAX_LINK_LABEL_LENGTH as bufsize_t {
        return std::ptr::null_mut();
    }

    if map.is_null() || (*map).size == 0 {
        return std::ptr::null_mut();
    }

    norm = normalize_reference((*map).mem, label);
    if norm.is_null() {
        return std::ptr::null_mut();
    }

    if (*map).sorted.is_null() {
        sort_references(map);
    }

    ref_ = bsearch(
        norm as *const c_void,
        (*map).sorted as *const c_void,
        (*map).size as usize,
        std::mem::size_of::<*mut cmark_reference>(),
        Some(refsearch),
    ) as *mut *mut cmark_reference;
    ((*(*map).mem).free)(norm as *mut c_void);

    if !ref_.is_null() {
        r = *ref_;
        /* Check for expansion limit */
        if (*map).max_ref_size != 0 && (*r).size > (*map).max_ref_size.wrapping_sub((*map).ref_size) {
            return std::ptr::null_mut();
        }
        (*map).ref_size = (*map).ref_size.wrapping_add((*r).size);
    }

    r
}

pub unsafe fn cmark_reference_map_free(map: *mut cmark_reference_map) {
    let mut ref_: *mut cmark_reference;

    if map.is_null() {
        return;
    }

    ref_ = (*map).refs;
    while !ref_.is_null() {
        let next: *mut cmark_reference = (*ref_).next;
        reference_free(map, ref_);
        ref_ = next;
    }

    ((*(*map).mem).free)((*map).sorted as *mut c_void);
    ((*(*map).mem).free)(map as *mut c_void);
}

pub unsafe fn cmark_reference_map_new(mem: *mut cmark_mem) -> *mut cmark_reference_map {
    let map: *mut cmark_reference_map =
        ((*mem).calloc)(1, std::mem::size_of::<cmark_reference_map>()) as *mut cmark_reference_map;
    (*map).mem = mem;
    map
}
