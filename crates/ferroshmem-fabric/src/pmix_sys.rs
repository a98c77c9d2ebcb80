//! Hand-written declarations of the PMIx 4.2 client subset this crate calls (`pmix.h`,
//! `pmix_common.h`). Every struct, constant and key string here is compared with the C headers
//! by the layout test (`csrc/layout.c` run by build.rs).
#![allow(unsafe_code, non_camel_case_types, dead_code)]

use std::ffi::{c_char, c_int, CStr};

pub type pmix_status_t = c_int;
pub type pmix_rank_t = u32;
pub type pmix_data_type_t = u16;
pub type pmix_scope_t = u8;
pub type pmix_info_directives_t = u32;

pub const PMIX_MAX_NSLEN: usize = 255;
pub const PMIX_MAX_KEYLEN: usize = 511;
pub const PMIX_RANK_WILDCARD: pmix_rank_t = u32::MAX - 1;

pub const PMIX_SUCCESS: pmix_status_t = 0;
pub const PMIX_ERR_NOT_FOUND: pmix_status_t = -46;

pub const PMIX_UNDEF: pmix_data_type_t = 0;
pub const PMIX_BOOL: pmix_data_type_t = 1;
pub const PMIX_STRING: pmix_data_type_t = 3;
pub const PMIX_UINT16: pmix_data_type_t = 13;
pub const PMIX_UINT32: pmix_data_type_t = 14;
pub const PMIX_BYTE_OBJECT: pmix_data_type_t = 27;
pub const PMIX_PROC_RANK: pmix_data_type_t = 40;

pub const PMIX_GLOBAL: pmix_scope_t = 3;
pub const PMIX_INFO_REQD: pmix_info_directives_t = 1;

pub const PMIX_JOB_SIZE: &CStr = c"pmix.job.size";
pub const PMIX_LOCAL_RANK: &CStr = c"pmix.lrank";
pub const PMIX_LOCAL_SIZE: &CStr = c"pmix.local.size";
pub const PMIX_LOCAL_PEERS: &CStr = c"pmix.lpeers";
pub const PMIX_NODEID: &CStr = c"pmix.nodeid";
pub const PMIX_HOSTNAME: &CStr = c"pmix.hname";
pub const PMIX_COLLECT_DATA: &CStr = c"pmix.collect";

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_proc_t {
    pub nspace: [c_char; PMIX_MAX_NSLEN + 1],
    pub rank: pmix_rank_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_byte_object_t {
    pub bytes: *mut c_char,
    pub size: usize,
}

/// The `data` union of `pmix_value_t`: only the members read or written here, plus padding to
/// the size of its largest member (`pmix_envar_t`: two pointers and a char).
#[repr(C)]
#[derive(Clone, Copy)]
pub union pmix_value_data {
    pub flag: bool,
    pub string: *mut c_char,
    pub uint16: u16,
    pub uint32: u32,
    pub rank: pmix_rank_t,
    pub bo: pmix_byte_object_t,
    pub _pad: [u64; 3],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_value_t {
    pub type_: pmix_data_type_t,
    pub data: pmix_value_data,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_info_t {
    pub key: [c_char; PMIX_MAX_KEYLEN + 1],
    pub flags: pmix_info_directives_t,
    pub value: pmix_value_t,
}

impl pmix_proc_t {
    pub fn zeroed() -> Self {
        pmix_proc_t { nspace: [0; PMIX_MAX_NSLEN + 1], rank: 0 }
    }
}

impl pmix_info_t {
    /// An info of a boolean value (`PMIX_INFO_LOAD(info, key, &b, PMIX_BOOL)`).
    pub fn boolean(key: &CStr, value: bool) -> Self {
        let mut k = [0 as c_char; PMIX_MAX_KEYLEN + 1];
        for (dst, &src) in k.iter_mut().zip(key.to_bytes().iter().take(PMIX_MAX_KEYLEN)) {
            *dst = src as c_char;
        }
        pmix_info_t {
            key: k,
            flags: 0,
            value: pmix_value_t { type_: PMIX_BOOL, data: pmix_value_data { _pad: [0; 3] } },
        }
        .with_flag(value)
    }

    fn with_flag(mut self, value: bool) -> Self {
        self.value.data.flag = value;
        self
    }
}

#[link(name = "pmix")]
extern "C" {
    pub fn PMIx_Init(proc_: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize) -> pmix_status_t;
    pub fn PMIx_Finalize(info: *const pmix_info_t, ninfo: usize) -> pmix_status_t;
    pub fn PMIx_Initialized() -> c_int;
    pub fn PMIx_Put(scope: pmix_scope_t, key: *const c_char, val: *mut pmix_value_t) -> pmix_status_t;
    pub fn PMIx_Commit() -> pmix_status_t;
    pub fn PMIx_Fence(procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t;
    pub fn PMIx_Get(
        proc_: *const pmix_proc_t,
        key: *const c_char,
        info: *const pmix_info_t,
        ninfo: usize,
        val: *mut *mut pmix_value_t,
    ) -> pmix_status_t;
    pub fn PMIx_Error_string(status: pmix_status_t) -> *const c_char;
    /// Frees what a value's data points to (the `PMIX_VALUE_DESTRUCT` macro); the value struct
    /// itself, allocated by `PMIx_Get`, is then released with `free` (`PMIX_VALUE_RELEASE`).
    /// PMIx 4.2.2 exports no `PMIx_Value_free`.
    pub fn PMIx_Value_destruct(val: *mut pmix_value_t);
}
