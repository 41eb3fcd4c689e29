//! main.c: the cmark program.
//!
//! The C program's own `main(argc, argv)` is kept (`#![no_main]`), so the
//! process starts exactly as the C one does: no Rust runtime set-up of
//! signal dispositions (SIGPIPE stays as inherited), standard streams or
//! stack-overflow handlers. Output goes through C stdio, as in main.c.
#![no_main]
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
#![allow(dead_code, unused_mut, unused_assignments)]

use ::cmark::*;
use std::os::raw::{c_char, c_int, c_long, c_void};

#[repr(C)]
struct FILE {
    _opaque: [u8; 0],
}

extern "C" {
    static mut stdin: *mut FILE;
    static mut stdout: *mut FILE;
    static mut stderr: *mut FILE;
    fn printf(format: *const c_char, ...) -> c_int;
    fn fprintf(stream: *mut FILE, format: *const c_char, ...) -> c_int;
    fn fopen(pathname: *const c_char, mode: *const c_char) -> *mut FILE;
    fn fread(ptr: *mut c_void, size: usize, nmemb: usize, stream: *mut FILE) -> usize;
    fn fclose(stream: *mut FILE) -> c_int;
    fn strcmp(s1: *const c_char, s2: *const c_char) -> c_int;
    fn strlen(s: *const c_char) -> usize;
    fn strtol(nptr: *const c_char, endptr: *mut *mut c_char, base: c_int) -> c_long;
    fn strerror(errnum: c_int) -> *mut c_char;
    fn __errno_location() -> *mut c_int;
    fn calloc(nmemb: usize, size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
    fn exit(status: c_int) -> !;
}

/// A NUL-terminated C string literal.
macro_rules! c {
    ($s:expr) => {
        concat!($s, "\0").as_ptr() as *const c_char
    };
}

type writer_format = u32;
const FORMAT_NONE: writer_format = 0;
const FORMAT_HTML: writer_format = 1;
const FORMAT_XML: writer_format = 2;
const FORMAT_MAN: writer_format = 3;
const FORMAT_COMMONMARK: writer_format = 4;
const FORMAT_LATEX: writer_format = 5;

unsafe fn print_usage() {
    printf(c!("Usage:   cmark [FILE*]\n"));
    printf(c!("Options:\n"));
    printf(c!(
        "  --to, -t FORMAT  Specify output format (html, xml, man, commonmark, latex)\n"
    ));
    printf(c!("  --width WIDTH    Specify wrap width (default 0 = nowrap)\n"));
    printf(c!("  --sourcepos      Include source position attribute\n"));
    printf(c!("  --hardbreaks     Treat newlines as hard line breaks\n"));
    printf(c!("  --nobreaks       Render soft line breaks as spaces\n"));
    printf(c!("  --safe           Omit raw HTML and dangerous URLs\n"));
    printf(c!("  --unsafe         Render raw HTML and dangerous URLs\n"));
    printf(c!("  --smart          Use smart punctuation\n"));
    printf(c!("  --validate-utf8  Replace invalid UTF-8 sequences with U+FFFD\n"));
    printf(c!("  --help, -h       Print usage information\n"));
    printf(c!("  --version        Print version\n"));
}

unsafe fn print_document(
    document: *mut cmark_node,
    writer: writer_format,
    options: c_int,
    width: c_int,
) {
    let result: *mut c_char;

    match writer {
        FORMAT_HTML => {
            result = cmark_render_html(document, options);
        }
        FORMAT_XML => {
            result = cmark_render_xml(document, options);
        }
        FORMAT_MAN => {
            result = cmark_render_man(document, options, width);
        }
        FORMAT_COMMONMARK => {
            result = cmark_render_commonmark(document, options, width);
        }
        FORMAT_LATEX => {
            result = cmark_render_latex(document, options, width);
        }
        _ => {
            fprintf(stderr, c!("Unknown format %d\n"), writer as c_int);
            exit(1);
        }
    }
    printf(c!("%s"), result);
    ((*(*document).mem).free)(result as *mut c_void);
}

#[no_mangle]
pub unsafe extern "C" fn main(argc: c_int, argv: *mut *mut c_char) -> c_int {
    let mut i: c_int;
    let mut numfps: c_int = 0;
    let files: *mut c_int;
    let mut buffer = [0 as c_char; 4096];
    let parser: *mut cmark_parser;
    let mut bytes: usize;
    let document: *mut cmark_node;
    let mut width: c_int = 0;
    let mut unparsed: *mut c_char = std::ptr::null_mut();
    let mut writer: writer_format = FORMAT_HTML;
    let mut options: c_int = CMARK_OPT_DEFAULT as c_int;

    let arg = |i: c_int| -> *mut c_char { *argv.offset(i as isize) };

    files = calloc(argc as usize, std::mem::size_of::<c_int>()) as *mut c_int;

    i = 1;
    while i < argc {
        if strcmp(arg(i), c!("--version")) == 0 {
            // CMARK_VERSION_STRING is a Rust &str (no NUL): print it by length.
            printf(
                c!("cmark %.*s"),
                CMARK_VERSION_STRING.len() as c_int,
                CMARK_VERSION_STRING.as_ptr() as *const c_char,
            );
            printf(c!(" - CommonMark converter\n(C) 2014-2016 John MacFarlane\n"));
            exit(0);
        } else if strcmp(arg(i), c!("--sourcepos")) == 0 {
            options |= CMARK_OPT_SOURCEPOS as c_int;
        } else if strcmp(arg(i), c!("--hardbreaks")) == 0 {
            options |= CMARK_OPT_HARDBREAKS as c_int;
        } else if strcmp(arg(i), c!("--nobreaks")) == 0 {
            options |= CMARK_OPT_NOBREAKS as c_int;
        } else if strcmp(arg(i), c!("--smart")) == 0 {
            options |= CMARK_OPT_SMART as c_int;
        } else if strcmp(arg(i), c!("--safe")) == 0 {
            options |= CMARK_OPT_SAFE as c_int;
        } else if strcmp(arg(i), c!("--unsafe")) == 0 {
            options |= CMARK_OPT_UNSAFE as c_int;
        } else if strcmp(arg(i), c!("--validate-utf8")) == 0 {
            options |= CMARK_OPT_VALIDATE_UTF8 as c_int;
        } else if strcmp(arg(i), c!("--help")) == 0 || strcmp(arg(i), c!("-h")) == 0 {
            print_usage();
            exit(0);
        } else if strcmp(arg(i), c!("--width")) == 0 {
            i += 1;
            if i < argc {
                width = strtol(arg(i), &mut unparsed, 10) as c_int;
                if !unparsed.is_null() && strlen(unparsed) > 0 {
                    fprintf(
                        stderr,
                        c!("failed parsing width '%s' at '%s'\n"),
                        arg(i),
                        unparsed,
                    );
                    exit(1);
                }
            } else {
                fprintf(stderr, c!("--width requires an argument\n"));
                exit(1);
            }
        } else if strcmp(arg(i), c!("-t")) == 0 || strcmp(arg(i), c!("--to")) == 0 {
            i += 1;
            if i < argc {
                if strcmp(arg(i), c!("man")) == 0 {
                    writer = FORMAT_MAN;
                } else if strcmp(arg(i), c!("html")) == 0 {
                    writer = FORMAT_HTML;
                } else if strcmp(arg(i), c!("xml")) == 0 {
                    writer = FORMAT_XML;
                } else if strcmp(arg(i), c!("commonmark")) == 0 {
                    writer = FORMAT_COMMONMARK;
                } else if strcmp(arg(i), c!("latex")) == 0 {
                    writer = FORMAT_LATEX;
                } else {
                    fprintf(stderr, c!("Unknown format %s\n"), arg(i));
                    exit(1);
                }
            } else {
                fprintf(stderr, c!("No argument provided for %s\n"), arg(i - 1));
                exit(1);
            }
        } else if *arg(i) == b'-' as c_char {
            print_usage();
            exit(1);
        } else {
            // treat as file argument
            *files.offset(numfps as isize) = i;
            numfps += 1;
        }
        i += 1;
    }

    parser = cmark_parser_new(options);
    i = 0;
    while i < numfps {
        let fp = fopen(arg(*files.offset(i as isize)), c!("rb"));
        if fp.is_null() {
            fprintf(
                stderr,
                c!("Error opening file %s: %s\n"),
                arg(*files.offset(i as isize)),
                strerror(*__errno_location()),
            );
            exit(1);
        }

        loop {
            bytes = fread(
                buffer.as_mut_ptr() as *mut c_void,
                1,
                std::mem::size_of_val(&buffer),
                fp,
            );
            if bytes == 0 {
                break;
            }
            cmark_parser_feed(parser, buffer.as_ptr(), bytes);
            if bytes < std::mem::size_of_val(&buffer) {
                break;
            }
        }

        fclose(fp);
        i += 1;
    }

    if numfps == 0 {
        loop {
            bytes = fread(
                buffer.as_mut_ptr() as *mut c_void,
                1,
                std::mem::size_of_val(&buffer),
                stdin,
            );
            if bytes == 0 {
                break;
            }
            cmark_parser_feed(parser, buffer.as_ptr(), bytes);
            if bytes < std::mem::size_of_val(&buffer) {
                break;
            }
        }
    }

    document = cmark_parser_finish(parser);
    cmark_parser_free(parser);

    print_document(document, writer, options, width);

    cmark_node_free(document);

    free(files as *mut c_void);

    0
}
