//! Compares the hand-written bindings with the C headers: build.rs compiled and ran
//! `csrc/layout.c`, whose output (`OUT_DIR/layout.txt`) lists the size and field offsets of
//! every declared struct and the value of every constant and key string used.
#![allow(unsafe_code)]

use crate::pmix_sys::*;
use crate::ucp_sys::*;
use std::collections::BTreeMap;
use std::mem::{offset_of, size_of};

const LAYOUT: &str = include_str!(concat!(env!("OUT_DIR"), "/layout.txt"));

fn c_side() -> BTreeMap<String, String> {
    LAYOUT
        .lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ' ');
            let (kind, name, value) = (it.next()?, it.next()?, it.next()?);
            Some((format!("{kind} {name}"), value.to_owned()))
        })
        .collect()
}

#[test]
fn layout_matches_headers() {
    let c = c_side();
    let mut rust: Vec<(String, String)> = Vec::new();
    macro_rules! size {
        ($t:ty) => {
            rust.push((format!("size {}", stringify!($t)), size_of::<$t>().to_string()));
        };
    }
    macro_rules! off {
        ($t:ty, $f:ident) => {
            rust.push((format!("offset {}.{}", stringify!($t), stringify!($f)), offset_of!($t, $f).to_string()));
        };
    }
    macro_rules! konst {
        ($name:expr, $v:expr) => {
            rust.push((format!("const {}", $name), (($v) as i64).to_string()));
        };
        ($c:ident) => {
            rust.push((format!("const {}", stringify!($c)), (($c) as i64).to_string()));
        };
    }
    macro_rules! key {
        ($c:ident) => {
            rust.push((format!("key {}", stringify!($c)), $c.to_str().unwrap().to_owned()));
        };
    }

    // UCX structs
    size!(ucs_cpu_set_t);
    size!(ucs_sock_addr_t);
    off!(ucs_sock_addr_t, addr);
    off!(ucs_sock_addr_t, addrlen);
    size!(ucp_err_handler_t);
    off!(ucp_err_handler_t, cb);
    off!(ucp_err_handler_t, arg);
    size!(ucp_params_t);
    for_fields_params(&mut rust);
    size!(ucp_worker_params_t);
    off!(ucp_worker_params_t, field_mask);
    off!(ucp_worker_params_t, thread_mode);
    off!(ucp_worker_params_t, cpu_mask);
    off!(ucp_worker_params_t, events);
    off!(ucp_worker_params_t, user_data);
    off!(ucp_worker_params_t, event_fd);
    off!(ucp_worker_params_t, flags);
    off!(ucp_worker_params_t, name);
    off!(ucp_worker_params_t, am_alignment);
    off!(ucp_worker_params_t, client_id);
    size!(ucp_worker_attr_t);
    off!(ucp_worker_attr_t, field_mask);
    off!(ucp_worker_attr_t, thread_mode);
    off!(ucp_worker_attr_t, address_flags);
    off!(ucp_worker_attr_t, address);
    off!(ucp_worker_attr_t, address_length);
    off!(ucp_worker_attr_t, max_am_header);
    off!(ucp_worker_attr_t, name);
    off!(ucp_worker_attr_t, max_debug_string);
    size!(ucp_ep_params_t);
    off!(ucp_ep_params_t, field_mask);
    off!(ucp_ep_params_t, address);
    off!(ucp_ep_params_t, err_mode);
    off!(ucp_ep_params_t, err_handler);
    off!(ucp_ep_params_t, user_data);
    off!(ucp_ep_params_t, flags);
    off!(ucp_ep_params_t, sockaddr);
    off!(ucp_ep_params_t, conn_request);
    off!(ucp_ep_params_t, name);
    off!(ucp_ep_params_t, local_sockaddr);
    size!(ucp_mem_map_params_t);
    off!(ucp_mem_map_params_t, field_mask);
    off!(ucp_mem_map_params_t, address);
    off!(ucp_mem_map_params_t, length);
    off!(ucp_mem_map_params_t, flags);
    off!(ucp_mem_map_params_t, prot);
    off!(ucp_mem_map_params_t, memory_type);
    size!(ucp_request_param_t);
    off!(ucp_request_param_t, op_attr_mask);
    off!(ucp_request_param_t, flags);
    off!(ucp_request_param_t, request);
    off!(ucp_request_param_t, cb);
    off!(ucp_request_param_t, datatype);
    off!(ucp_request_param_t, user_data);
    off!(ucp_request_param_t, reply_buffer);
    off!(ucp_request_param_t, memory_type);
    off!(ucp_request_param_t, recv_info);
    off!(ucp_request_param_t, memh);
    size!(ucs_status_t);
    size!(ucs_thread_mode_t);
    size!(ucp_err_handling_mode_t);
    size!(ucs_memory_type_t);
    size!(ucp_atomic_op_t);
    size!(ucp_datatype_t);

    // UCX constants
    konst!(UCP_API_MAJOR);
    konst!(UCP_API_MINOR);
    konst!(UCS_OK);
    konst!(UCS_INPROGRESS);
    konst!(UCS_ERR_BUSY);
    konst!(UCS_ERR_LAST);
    konst!(UCS_ERR_UNSUPPORTED);
    konst!(UCP_PARAM_FIELD_FEATURES);
    konst!(UCP_PARAM_FIELD_MT_WORKERS_SHARED);
    konst!(UCP_FEATURE_RMA);
    konst!(UCP_FEATURE_AMO32);
    konst!(UCP_FEATURE_AMO64);
    konst!(UCP_FEATURE_WAKEUP);
    konst!(UCP_WORKER_PARAM_FIELD_THREAD_MODE);
    konst!(UCP_WORKER_ATTR_FIELD_THREAD_MODE);
    konst!(UCS_THREAD_MODE_SINGLE);
    konst!(UCS_THREAD_MODE_SERIALIZED);
    konst!(UCS_THREAD_MODE_MULTI);
    konst!(UCP_EP_PARAM_FIELD_REMOTE_ADDRESS);
    konst!(UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE);
    konst!(UCP_ERR_HANDLING_MODE_NONE);
    konst!(UCP_ERR_HANDLING_MODE_PEER);
    konst!(UCP_EP_CLOSE_FLAG_FORCE);
    konst!(UCP_MEM_MAP_PARAM_FIELD_ADDRESS);
    konst!(UCP_MEM_MAP_PARAM_FIELD_LENGTH);
    konst!(UCP_OP_ATTR_FIELD_DATATYPE);
    konst!(UCP_OP_ATTR_FIELD_FLAGS);
    konst!(UCP_OP_ATTR_FIELD_REPLY_BUFFER);
    konst!(UCP_OP_ATTR_FLAG_NO_IMM_CMPL);
    konst!(UCP_DATATYPE_CONTIG);
    konst!(UCP_DATATYPE_SHIFT);
    konst!("ucp_dt_make_contig(1)", ucp_dt_make_contig(1));
    konst!("ucp_dt_make_contig(4)", ucp_dt_make_contig(4));
    konst!("ucp_dt_make_contig(8)", ucp_dt_make_contig(8));
    konst!(UCP_ATOMIC_OP_ADD);
    konst!(UCP_ATOMIC_OP_SWAP);
    konst!(UCP_ATOMIC_OP_CSWAP);
    konst!(UCP_ATOMIC_OP_AND);
    konst!(UCP_ATOMIC_OP_OR);
    konst!(UCP_ATOMIC_OP_XOR);

    // PMIx structs
    size!(pmix_proc_t);
    off!(pmix_proc_t, nspace);
    off!(pmix_proc_t, rank);
    size!(pmix_byte_object_t);
    off!(pmix_byte_object_t, bytes);
    off!(pmix_byte_object_t, size);
    size!(pmix_value_t);
    rust.push(("offset pmix_value_t.type".into(), offset_of!(pmix_value_t, type_).to_string()));
    off!(pmix_value_t, data);
    let data = offset_of!(pmix_value_t, data);
    for (field, off) in [
        ("flag", offset_of!(pmix_value_data, flag)),
        ("string", offset_of!(pmix_value_data, string)),
        ("uint16", offset_of!(pmix_value_data, uint16)),
        ("uint32", offset_of!(pmix_value_data, uint32)),
        ("rank", offset_of!(pmix_value_data, rank)),
        ("bo", offset_of!(pmix_value_data, bo)),
    ] {
        rust.push((format!("offset pmix_value_t.data.{field}"), (data + off).to_string()));
    }
    size!(pmix_info_t);
    off!(pmix_info_t, key);
    off!(pmix_info_t, flags);
    off!(pmix_info_t, value);
    size!(pmix_status_t);
    size!(pmix_rank_t);
    size!(pmix_data_type_t);
    size!(pmix_scope_t);
    size!(pmix_info_directives_t);

    // PMIx constants and keys
    konst!(PMIX_MAX_NSLEN);
    konst!(PMIX_MAX_KEYLEN);
    konst!(PMIX_RANK_WILDCARD);
    konst!(PMIX_SUCCESS);
    konst!(PMIX_ERR_NOT_FOUND);
    konst!(PMIX_UNDEF);
    konst!(PMIX_BOOL);
    konst!(PMIX_STRING);
    konst!(PMIX_UINT16);
    konst!(PMIX_UINT32);
    konst!(PMIX_PROC_RANK);
    konst!(PMIX_BYTE_OBJECT);
    konst!(PMIX_GLOBAL);
    konst!(PMIX_INFO_REQD);
    key!(PMIX_JOB_SIZE);
    key!(PMIX_LOCAL_RANK);
    key!(PMIX_LOCAL_SIZE);
    key!(PMIX_LOCAL_PEERS);
    key!(PMIX_NODEID);
    key!(PMIX_HOSTNAME);
    key!(PMIX_COLLECT_DATA);

    let mut errors = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (name, value) in &rust {
        seen.insert(name.clone());
        match c.get(name) {
            None => errors.push(format!("{name}: not printed by csrc/layout.c")),
            Some(cv) if cv != value => errors.push(format!("{name}: C {cv}, Rust {value}")),
            Some(_) => {}
        }
    }
    for name in c.keys() {
        if !seen.contains(name) {
            errors.push(format!("{name}: printed by csrc/layout.c but not checked on the Rust side"));
        }
    }
    assert!(errors.is_empty(), "bindings differ from the headers:\n{}", errors.join("\n"));
    assert!(rust.len() > 100, "only {} items checked", rust.len());
}

fn for_fields_params(rust: &mut Vec<(String, String)>) {
    for (f, o) in [
        ("field_mask", offset_of!(ucp_params_t, field_mask)),
        ("features", offset_of!(ucp_params_t, features)),
        ("request_size", offset_of!(ucp_params_t, request_size)),
        ("request_init", offset_of!(ucp_params_t, request_init)),
        ("request_cleanup", offset_of!(ucp_params_t, request_cleanup)),
        ("tag_sender_mask", offset_of!(ucp_params_t, tag_sender_mask)),
        ("mt_workers_shared", offset_of!(ucp_params_t, mt_workers_shared)),
        ("estimated_num_eps", offset_of!(ucp_params_t, estimated_num_eps)),
        ("estimated_num_ppn", offset_of!(ucp_params_t, estimated_num_ppn)),
        ("name", offset_of!(ucp_params_t, name)),
    ] {
        rust.push((format!("offset ucp_params_t.{f}"), o.to_string()));
    }
}

/// The status decoding helpers (C macros) agree with their definitions.
#[test]
fn status_pointer_helpers() {
    let err = UCS_ERR_BUSY as isize as *mut std::ffi::c_void;
    assert!(ucs_ptr_is_err(err));
    assert!(!ucs_ptr_is_ptr(err));
    assert_eq!(ucs_ptr_raw_status(err), UCS_ERR_BUSY);
    assert!(!ucs_ptr_is_err(std::ptr::null_mut()));
    assert!(!ucs_ptr_is_ptr(std::ptr::null_mut()));
    let mut x = 0u64;
    let p = (&mut x as *mut u64).cast();
    assert!(ucs_ptr_is_ptr(p) && !ucs_ptr_is_err(p));
}
