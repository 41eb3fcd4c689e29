//! iterator.h + iterator.c: walking a cmark_node tree.
use crate::*;
use std::os::raw::c_void;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cmark_iter_state {
    pub ev_type: cmark_event_type,
    pub node: *mut cmark_node,
}

#[repr(C)]
pub struct cmark_iter {
    pub mem: *mut cmark_mem,
    pub root: *mut cmark_node,
    pub cur: cmark_iter_state,
    pub next: cmark_iter_state,
}

static S_leaf_mask: i32 = (1i32 << CMARK_NODE_HTML_BLOCK)
    | (1i32 << CMARK_NODE_THEMATIC_BREAK)
    | (1i32 << CMARK_NODE_CODE_BLOCK)
    | (1i32 << CMARK_NODE_TEXT)
    | (1i32 << CMARK_NODE_SOFTBREAK)
    | (1i32 << CMARK_NODE_LINEBREAK)
    | (1i32 << CMARK_NODE_CODE)
    | (1i32 << CMARK_NODE_HTML_INLINE);

#[no_mangle]
pub unsafe extern "C" fn cmark_iter_new(root: *mut cmark_node) -> *mut cmark_iter {
    if root.is_null() {
        return std::ptr::null_mut();
    }
    let mem: *mut cmark_mem = (*root).mem;
    let iter = ((*mem).calloc)(1, std::mem::size_of::<cmark_iter>()) as *mut cmark_iter;
    (*iter).mem = mem;
    (*iter).root = root;
    (*iter).cur.ev_type = CMARK_EVENT_NONE;
    (*iter).cur.node = std::ptr::null_mut();
    (*iter).next.ev_type = CMARK_EVENT_ENTER;
    (*iter).next.node = root;
    iter
}

#[no_mangle]
pub unsafe extern "C" fn cmark_iter_free(iter: *mut cmark_iter) {
    ((*(*iter).mem).free)(iter as *mut c_void);
}

unsafe fn S_is_leaf(node: *mut cmark_node) -> bool {
    ((1i32.wrapping_shl((*node).type_ as u32)) & S_leaf_mask) != 0
}

#[no_mangle]
pub unsafe extern "C" fn cmark_iter_next(iter: *mut cmark_iter) -> cmark_event_type {
    let ev_type: cmark_event_type = (*iter).next.ev_type;
    let node: *mut cmark_node = (*iter).next.node;

    (*iter).cur.ev_type = ev_type;
    (*iter).cur.node = node;

    if ev_type == CMARK_EVENT_DONE {
        return ev_type;
    }

    /* roll forward to next item, setting both fields */
    if ev_type == CMARK_EVENT_ENTER && !S_is_leaf(node) {
        if (*node).first_child.is_null() {
            /* stay on this node but exit */
            (*iter).next.ev_type = CMARK_EVENT_EXIT;
        } else {
            (*iter).next.ev_type = CMARK_EVENT_ENTER;
            (*iter).next.node = (*node).first_child;
        }
    } else if node == (*iter).root {
        /* don't move past root */
        (*iter).next.ev_type = CMARK_EVENT_DONE;
        (*iter).next.node = std::ptr::null_mut();
    } else if !(*node).next.is_null() {
        (*iter).next.ev_type = CMARK_EVENT_ENTER;
        (*iter).next.node = (*node).next;
    } else if !(*node).parent.is_null() {
        (*iter).next.ev_type = CMARK_EVENT_EXIT;
        (*iter).next.node = (*node).parent;
    } else {
        debug_assert!(false);
        (*iter).next.ev_type = CMARK_EVENT_DONE;
        (*iter).next.node = std::ptr::null_mut();
    }

    ev_type
}

#[no_mangle]
pub unsafe extern "C" fn cmark_iter_reset(
    iter: *mut cmark_iter,
    current: *mut cmark_node,
    event_type: cmark_event_type,
) {
    (*iter).next.ev_type = event_type;
    (*iter).next.node = current;
    cmark_iter_next(iter);
}

#[no_mangle]
pub unsafe extern "C" fn cmark_iter_get_node(iter: *mut cmark_iter) -> *mut cmark_node {
    (*iter).cur.node
}

#[no_mangle]
pub unsafe extern "C" fn cmark_iter_get_event_type(iter: *mut cmark_iter) -> cmark_event_type {
    (*iter).cur.ev_type
}

#[no_mangle]
pub unsafe extern "C" fn cmark_iter_get_root(iter: *mut cmark_iter) -> *mut cmark_node {
    (*iter).root
}

#[no_mangle]
pub unsafe extern "C" fn cmark_consolidate_text_nodes(root: *mut cmark_node) {
    if root.is_null() {
        return;
    }
    let iter: *mut cmark_iter = cmark_iter_new(root);
    let mut buf: cmark_strbuf = CMARK_BUF_INIT((*iter).mem);
    let mut ev_type: cmark_event_type;
    let mut cur: *mut cmark_node;
    let mut tmp: *mut cmark_node;
    let mut next: *mut cmark_node;

    loop {
        ev_type = cmark_iter_next(iter);
        if ev_type == CMARK_EVENT_DONE {
            break;
        }
        cur = cmark_iter_get_node(iter);
        if ev_type == CMARK_EVENT_ENTER
            && (*cur).type_ as cmark_node_type == CMARK_NODE_TEXT
            && !(*cur).next.is_null()
            && (*(*cur).next).type_ as cmark_node_type == CMARK_NODE_TEXT
        {
            cmark_strbuf_clear(&mut buf);
            cmark_strbuf_put(&mut buf, (*cur).data, (*cur).len);
            tmp = (*cur).next;
            while !tmp.is_null() && (*tmp).type_ as cmark_node_type == CMARK_NODE_TEXT {
                cmark_iter_next(iter); // advance pointer
                cmark_strbuf_put(&mut buf, (*tmp).data, (*tmp).len);
                (*cur).end_column = (*tmp).end_column;
                next = (*tmp).next;
                cmark_node_free(tmp);
                tmp = next;
            }
            ((*(*iter).mem).free)((*cur).data as *mut c_void);
            (*cur).len = buf.size;
            (*cur).data = cmark_strbuf_detach(&mut buf);
        }
    }

    cmark_strbuf_free(&mut buf);
    cmark_iter_free(iter);
}
