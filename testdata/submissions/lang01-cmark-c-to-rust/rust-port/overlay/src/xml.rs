//! xml.c: rendering a cmark_node tree as XML.
use crate::*;
use std::os::raw::{c_char, c_int};

extern "C" {
    fn strlen(s: *const c_char) -> usize;
}

const BUFFER_SIZE: usize = 100;
const MAX_INDENT: c_int = 40;

/// A C string literal (NUL-terminated) as `*const c_char`.
macro_rules! xml_cs {
    ($s:expr) => {
        concat!($s, "\0").as_ptr() as *const c_char
    };
}

/// snprintf(buffer, sizeof buffer, ...): formats into a fixed buffer,
/// truncating to its size - 1 bytes, always NUL-terminated.
fn xml_snprintf(buffer: &mut [u8], args: std::fmt::Arguments) {
    use std::io::Write;
    let n = buffer.len() - 1;
    let pos = {
        let mut cur = std::io::Cursor::new(&mut buffer[..n]);
        let _ = cur.write_fmt(args);
        cur.position() as usize
    };
    buffer[pos] = 0;
}

// Functions to convert cmark_nodes to XML strings.

// C0 control characters, U+FFFE and U+FFF aren't allowed in XML.
static XML_ESCAPE_TABLE: [c_char; 256] = [
    /* 0x00 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1,
    /* 0x10 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x20 */ 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x30 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 5, 0,
    /* 0x40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x60 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x70 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x80 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0xA0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0xB0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 9,
    /* 0xC0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0xD0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0xE0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0xF0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

// U+FFFD Replacement Character encoded in UTF-8
static XML_ESCAPES: [&[u8]; 6] = [
    b"\0",
    b"\xEF\xBF\xBD\0",
    b"&quot;\0",
    b"&amp;\0",
    b"&lt;\0",
    b"&gt;\0",
];

unsafe fn escape_xml(ob: *mut cmark_strbuf, src: *const u8, size: bufsize_t) {
    let mut i: bufsize_t = 0;
    let mut org: bufsize_t;
    let mut esc: c_char = 0;

    while i < size {
        org = i;
        while i < size && {
            esc = XML_ESCAPE_TABLE[*src.offset(i as isize) as usize];
            esc == 0
        } {
            i += 1;
        }

        if i > org {
            cmark_strbuf_put(ob, src.offset(org as isize), i - org);
        }

        if i >= size {
            break;
        }

        if esc == 9 {
            // To replace U+FFFE and U+FFFF with U+FFFD, only the last byte has to
            // be changed.
            // We know that src[i] is 0xBE or 0xBF.
            if i >= 2
                && *src.offset((i - 2) as isize) == 0xEF
                && *src.offset((i - 1) as isize) == 0xBF
            {
                cmark_strbuf_putc(ob, 0xBD);
            } else {
                cmark_strbuf_putc(ob, *src.offset(i as isize) as c_int);
            }
        } else {
            cmark_strbuf_puts(ob, XML_ESCAPES[esc as usize].as_ptr() as *const c_char);
        }

        i += 1;
    }
}

unsafe fn escape_xml_str(dest: *mut cmark_strbuf, source: *const u8) {
    if !source.is_null() {
        escape_xml(dest, source, strlen(source as *const c_char) as bufsize_t);
    }
}

#[repr(C)]
struct render_state {
    xml: *mut cmark_strbuf,
    indent: c_int,
}

#[inline]
unsafe fn indent(state: *mut render_state) {
    let mut i: c_int = 0;
    while i < (*state).indent && i < MAX_INDENT {
        cmark_strbuf_putc((*state).xml, b' ' as c_int);
        i += 1;
    }
}

unsafe fn S_render_node(
    node: *mut cmark_node,
    ev_type: cmark_event_type,
    state: *mut render_state,
    options: c_int,
) -> c_int {
    let xml: *mut cmark_strbuf = (*state).xml;
    let mut literal = false;
    let delim: cmark_delim_type;
    let entering = ev_type == CMARK_EVENT_ENTER;
    let mut buffer = [0u8; BUFFER_SIZE];

    if entering {
        indent(state);
        cmark_strbuf_putc(xml, b'<' as c_int);
        cmark_strbuf_puts(xml, cmark_node_get_type_string(node));

        if (options & CMARK_OPT_SOURCEPOS as c_int) != 0 && (*node).start_line != 0 {
            xml_snprintf(
                &mut buffer,
                format_args!(
                    " sourcepos=\"{}:{}-{}:{}\"",
                    (*node).start_line,
                    (*node).start_column,
                    (*node).end_line,
                    (*node).end_column
                ),
            );
            cmark_strbuf_puts(xml, buffer.as_ptr() as *const c_char);
        }

        literal = false;

        match (*node).type_ as cmark_node_type {
            CMARK_NODE_DOCUMENT => {
                cmark_strbuf_puts(xml, xml_cs!(" xmlns=\"http://commonmark.org/xml/1.0\""));
            }
            CMARK_NODE_TEXT | CMARK_NODE_CODE | CMARK_NODE_HTML_BLOCK | CMARK_NODE_HTML_INLINE => {
                cmark_strbuf_puts(xml, xml_cs!(" xml:space=\"preserve\">"));
                escape_xml(xml, (*node).data, (*node).len);
                cmark_strbuf_puts(xml, xml_cs!("</"));
                cmark_strbuf_puts(xml, cmark_node_get_type_string(node));
                literal = true;
            }
            CMARK_NODE_LIST => {
                match cmark_node_get_list_type(node) {
                    CMARK_ORDERED_LIST => {
                        cmark_strbuf_puts(xml, xml_cs!(" type=\"ordered\""));
                        xml_snprintf(
                            &mut buffer,
                            format_args!(" start=\"{}\"", cmark_node_get_list_start(node)),
                        );
                        cmark_strbuf_puts(xml, buffer.as_ptr() as *const c_char);
                        delim = cmark_node_get_list_delim(node);
                        if delim == CMARK_PAREN_DELIM {
                            cmark_strbuf_puts(xml, xml_cs!(" delim=\"paren\""));
                        } else if delim == CMARK_PERIOD_DELIM {
                            cmark_strbuf_puts(xml, xml_cs!(" delim=\"period\""));
                        }
                    }
                    CMARK_BULLET_LIST => {
                        cmark_strbuf_puts(xml, xml_cs!(" type=\"bullet\""));
                    }
                    _ => {}
                }
                xml_snprintf(
                    &mut buffer,
                    format_args!(
                        " tight=\"{}\"",
                        if cmark_node_get_list_tight(node) != 0 {
                            "true"
                        } else {
                            "false"
                        }
                    ),
                );
                cmark_strbuf_puts(xml, buffer.as_ptr() as *const c_char);
            }
            CMARK_NODE_HEADING => {
                xml_snprintf(
                    &mut buffer,
                    format_args!(" level=\"{}\"", (*node).as_.heading.level),
                );
                cmark_strbuf_puts(xml, buffer.as_ptr() as *const c_char);
            }
            CMARK_NODE_CODE_BLOCK => {
                if !(*node).as_.code.info.is_null() {
                    cmark_strbuf_puts(xml, xml_cs!(" info=\""));
                    escape_xml_str(xml, (*node).as_.code.info);
                    cmark_strbuf_putc(xml, b'"' as c_int);
                }
                cmark_strbuf_puts(xml, xml_cs!(" xml:space=\"preserve\">"));
                escape_xml(xml, (*node).data, (*node).len);
                cmark_strbuf_puts(xml, xml_cs!("</"));
                cmark_strbuf_puts(xml, cmark_node_get_type_string(node));
                literal = true;
            }
            CMARK_NODE_CUSTOM_BLOCK | CMARK_NODE_CUSTOM_INLINE => {
                cmark_strbuf_puts(xml, xml_cs!(" on_enter=\""));
                escape_xml_str(xml, (*node).as_.custom.on_enter);
                cmark_strbuf_putc(xml, b'"' as c_int);
                cmark_strbuf_puts(xml, xml_cs!(" on_exit=\""));
                escape_xml_str(xml, (*node).as_.custom.on_exit);
                cmark_strbuf_putc(xml, b'"' as c_int);
            }
            CMARK_NODE_LINK | CMARK_NODE_IMAGE => {
                cmark_strbuf_puts(xml, xml_cs!(" destination=\""));
                escape_xml_str(xml, (*node).as_.link.url);
                cmark_strbuf_putc(xml, b'"' as c_int);
                if !(*node).as_.link.title.is_null() {
                    cmark_strbuf_puts(xml, xml_cs!(" title=\""));
                    escape_xml_str(xml, (*node).as_.link.title);
                    cmark_strbuf_putc(xml, b'"' as c_int);
                }
            }
            _ => {}
        }
        if !(*node).first_child.is_null() {
            (*state).indent += 2;
        } else if !literal {
            cmark_strbuf_puts(xml, xml_cs!(" /"));
        }
        cmark_strbuf_puts(xml, xml_cs!(">\n"));
    } else if !(*node).first_child.is_null() {
        (*state).indent -= 2;
        indent(state);
        cmark_strbuf_puts(xml, xml_cs!("</"));
        cmark_strbuf_puts(xml, cmark_node_get_type_string(node));
        cmark_strbuf_puts(xml, xml_cs!(">\n"));
    }

    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_render_xml(root: *mut cmark_node, options: c_int) -> *mut c_char {
    let result: *mut c_char;
    let mut xml: cmark_strbuf = CMARK_BUF_INIT((*root).mem);
    let xml_p: *mut cmark_strbuf = &mut xml;
    let mut ev_type: cmark_event_type;
    let mut cur: *mut cmark_node;
    let mut state = render_state { xml: xml_p, indent: 0 };

    let iter: *mut cmark_iter = cmark_iter_new(root);

    cmark_strbuf_puts(state.xml, xml_cs!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
    cmark_strbuf_puts(
        state.xml,
        xml_cs!("<!DOCTYPE document SYSTEM \"CommonMark.dtd\">\n"),
    );
    loop {
        ev_type = cmark_iter_next(iter);
        if ev_type == CMARK_EVENT_DONE {
            break;
        }
        cur = cmark_iter_get_node(iter);
        S_render_node(cur, ev_type, &mut state, options);
    }
    result = cmark_strbuf_detach(xml_p) as *mut c_char;

    cmark_iter_free(iter);
    result
}
