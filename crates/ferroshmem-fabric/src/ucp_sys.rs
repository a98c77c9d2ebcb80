//! Hand-written declarations of the UCX 1.13 `ucp` subset this crate calls (`ucp/api/ucp.h`,
//! `ucp_def.h`, `ucs/type/status.h`). Every struct and constant here is compared with the C
//! headers by the layout test (`csrc/layout.c` run by build.rs, checked in `tests` below).
//!
//! Field-masked parameter structs are declared whole (UCX reads only the fields named in
//! `field_mask`, but the size must still match because UCX may copy them); unions and
//! callbacks we never set are declared as pointers of the same size.
#![allow(unsafe_code, non_camel_case_types, dead_code)]

use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void};

/// `ucs_status_t`: declared `UCS_S_PACKED`, so it is one byte, not an `int`.
pub type ucs_status_t = i8;
/// `ucs_status_ptr_t`: a request pointer, NULL (done) or a status cast to a pointer.
pub type ucs_status_ptr_t = *mut c_void;
pub type ucs_thread_mode_t = c_uint;
pub type ucp_err_handling_mode_t = c_uint;
pub type ucs_memory_type_t = c_uint;
pub type ucp_atomic_op_t = c_uint;
pub type ucp_datatype_t = u64;

macro_rules! opaque {
    ($($name:ident),*) => {$(
        #[repr(C)]
        pub struct $name {
            _data: [u8; 0],
            _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
        }
    )*};
}
opaque!(ucp_context, ucp_worker, ucp_ep, ucp_mem, ucp_rkey, ucp_config, ucp_address, ucp_conn_request);

pub type ucp_context_h = *mut ucp_context;
pub type ucp_worker_h = *mut ucp_worker;
pub type ucp_ep_h = *mut ucp_ep;
pub type ucp_mem_h = *mut ucp_mem;
pub type ucp_rkey_h = *mut ucp_rkey;

pub const UCP_API_MAJOR: c_uint = 1;
pub const UCP_API_MINOR: c_uint = 13;

pub const UCS_OK: ucs_status_t = 0;
pub const UCS_INPROGRESS: ucs_status_t = 1;
pub const UCS_ERR_BUSY: ucs_status_t = -15;
pub const UCS_ERR_UNSUPPORTED: ucs_status_t = -22;
pub const UCS_ERR_LAST: ucs_status_t = -100;

pub const UCP_PARAM_FIELD_FEATURES: u64 = 1 << 0;
pub const UCP_PARAM_FIELD_MT_WORKERS_SHARED: u64 = 1 << 5;
pub const UCP_FEATURE_RMA: u64 = 1 << 1;
pub const UCP_FEATURE_AMO32: u64 = 1 << 2;
pub const UCP_FEATURE_AMO64: u64 = 1 << 3;
pub const UCP_FEATURE_WAKEUP: u64 = 1 << 4;

pub const UCP_WORKER_PARAM_FIELD_THREAD_MODE: u64 = 1 << 0;
pub const UCP_WORKER_ATTR_FIELD_THREAD_MODE: u64 = 1 << 0;
pub const UCS_THREAD_MODE_SINGLE: ucs_thread_mode_t = 0;
pub const UCS_THREAD_MODE_SERIALIZED: ucs_thread_mode_t = 1;
pub const UCS_THREAD_MODE_MULTI: ucs_thread_mode_t = 2;

pub const UCP_EP_PARAM_FIELD_REMOTE_ADDRESS: u64 = 1 << 0;
pub const UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE: u64 = 1 << 1;
pub const UCP_ERR_HANDLING_MODE_NONE: ucp_err_handling_mode_t = 0;
pub const UCP_ERR_HANDLING_MODE_PEER: ucp_err_handling_mode_t = 1;
pub const UCP_EP_CLOSE_FLAG_FORCE: u32 = 1 << 0;

pub const UCP_MEM_MAP_PARAM_FIELD_ADDRESS: u64 = 1 << 0;
pub const UCP_MEM_MAP_PARAM_FIELD_LENGTH: u64 = 1 << 1;

pub const UCP_OP_ATTR_FIELD_DATATYPE: u32 = 1 << 3;
pub const UCP_OP_ATTR_FIELD_FLAGS: u32 = 1 << 4;
pub const UCP_OP_ATTR_FIELD_REPLY_BUFFER: u32 = 1 << 5;
pub const UCP_OP_ATTR_FLAG_NO_IMM_CMPL: u32 = 1 << 16;

pub const UCP_DATATYPE_CONTIG: u64 = 0;
pub const UCP_DATATYPE_SHIFT: u64 = 3;
/// `ucp_dt_make_contig(elem_size)` (a macro in C).
pub const fn ucp_dt_make_contig(elem_size: usize) -> ucp_datatype_t {
    ((elem_size as u64) << UCP_DATATYPE_SHIFT) | UCP_DATATYPE_CONTIG
}

pub const UCP_ATOMIC_OP_ADD: ucp_atomic_op_t = 0;
pub const UCP_ATOMIC_OP_SWAP: ucp_atomic_op_t = 1;
pub const UCP_ATOMIC_OP_CSWAP: ucp_atomic_op_t = 2;
pub const UCP_ATOMIC_OP_AND: ucp_atomic_op_t = 3;
pub const UCP_ATOMIC_OP_OR: ucp_atomic_op_t = 4;
pub const UCP_ATOMIC_OP_XOR: ucp_atomic_op_t = 5;

/// `ucs_cpu_set_t`: `UCS_CPU_SETSIZE` (1024) bits.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucs_cpu_set_t {
    pub ucs_bits: [c_ulong; 1024 / (8 * std::mem::size_of::<c_ulong>())],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucs_sock_addr_t {
    pub addr: *const libc::sockaddr,
    pub addrlen: libc::socklen_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucp_err_handler_t {
    /// `ucp_err_handler_cb_t`, never set here.
    pub cb: *mut c_void,
    pub arg: *mut c_void,
}

#[repr(C)]
pub struct ucp_params_t {
    pub field_mask: u64,
    pub features: u64,
    pub request_size: usize,
    /// `ucp_request_init_callback_t`, never set here.
    pub request_init: *mut c_void,
    /// `ucp_request_cleanup_callback_t`, never set here.
    pub request_cleanup: *mut c_void,
    pub tag_sender_mask: u64,
    pub mt_workers_shared: c_int,
    pub estimated_num_eps: usize,
    pub estimated_num_ppn: usize,
    pub name: *const c_char,
}

#[repr(C)]
pub struct ucp_worker_params_t {
    pub field_mask: u64,
    pub thread_mode: ucs_thread_mode_t,
    pub cpu_mask: ucs_cpu_set_t,
    pub events: c_uint,
    pub user_data: *mut c_void,
    pub event_fd: c_int,
    pub flags: u64,
    pub name: *const c_char,
    pub am_alignment: usize,
    pub client_id: u64,
}

#[repr(C)]
pub struct ucp_worker_attr_t {
    pub field_mask: u64,
    pub thread_mode: ucs_thread_mode_t,
    pub address_flags: u32,
    pub address: *mut ucp_address,
    pub address_length: usize,
    pub max_am_header: usize,
    pub name: [c_char; 32],
    pub max_debug_string: usize,
}

#[repr(C)]
pub struct ucp_ep_params_t {
    pub field_mask: u64,
    pub address: *const ucp_address,
    pub err_mode: ucp_err_handling_mode_t,
    pub err_handler: ucp_err_handler_t,
    pub user_data: *mut c_void,
    pub flags: c_uint,
    pub sockaddr: ucs_sock_addr_t,
    pub conn_request: *mut ucp_conn_request,
    pub name: *const c_char,
    pub local_sockaddr: ucs_sock_addr_t,
}

#[repr(C)]
pub struct ucp_mem_map_params_t {
    pub field_mask: u64,
    pub address: *mut c_void,
    pub length: usize,
    pub flags: c_uint,
    pub prot: c_uint,
    pub memory_type: ucs_memory_type_t,
}

#[repr(C)]
pub struct ucp_request_param_t {
    pub op_attr_mask: u32,
    pub flags: u32,
    pub request: *mut c_void,
    /// A union of completion callbacks, never set here.
    pub cb: *mut c_void,
    pub datatype: ucp_datatype_t,
    pub user_data: *mut c_void,
    pub reply_buffer: *mut c_void,
    pub memory_type: ucs_memory_type_t,
    /// A union of pointers (`size_t *length`, `ucp_tag_recv_info_t *tag_info`), never set here.
    pub recv_info: *mut c_void,
    pub memh: ucp_mem_h,
}

/// All-zero parameter structs: a zero `field_mask` or `op_attr_mask` means "no field set".
macro_rules! zeroed_default {
    ($($t:ty),*) => {$(
        impl $t {
            pub fn zeroed() -> Self {
                // SAFETY: a plain C struct of integers and raw pointers: all-zero is valid
                // (null pointers, zero masks), exactly what C code gets from `= {0}`.
                unsafe { std::mem::zeroed() }
            }
        }
    )*};
}
zeroed_default!(ucp_params_t, ucp_worker_params_t, ucp_worker_attr_t, ucp_ep_params_t, ucp_mem_map_params_t, ucp_request_param_t);

/// `UCS_PTR_IS_ERR`.
pub fn ucs_ptr_is_err(ptr: ucs_status_ptr_t) -> bool {
    ptr as usize >= UCS_ERR_LAST as isize as usize
}
/// `UCS_PTR_IS_PTR`: a live request (neither NULL nor an error).
pub fn ucs_ptr_is_ptr(ptr: ucs_status_ptr_t) -> bool {
    (ptr as usize).wrapping_sub(1) < (UCS_ERR_LAST as isize as usize).wrapping_sub(1)
}
/// `UCS_PTR_RAW_STATUS`.
pub fn ucs_ptr_raw_status(ptr: ucs_status_ptr_t) -> ucs_status_t {
    ptr as isize as ucs_status_t
}

#[link(name = "ucp")]
#[link(name = "uct")]
#[link(name = "ucs")]
extern "C" {
    pub fn ucs_status_string(status: ucs_status_t) -> *const c_char;

    pub fn ucp_config_read(env_prefix: *const c_char, filename: *const c_char, config_p: *mut *mut ucp_config) -> ucs_status_t;
    pub fn ucp_config_release(config: *mut ucp_config);
    /// `ucp_init` is a static inline over this, passing `UCP_API_MAJOR`/`UCP_API_MINOR`.
    pub fn ucp_init_version(
        api_major_version: c_uint,
        api_minor_version: c_uint,
        params: *const ucp_params_t,
        config: *const ucp_config,
        context_p: *mut ucp_context_h,
    ) -> ucs_status_t;
    pub fn ucp_cleanup(context: ucp_context_h);

    pub fn ucp_worker_create(context: ucp_context_h, params: *const ucp_worker_params_t, worker_p: *mut ucp_worker_h) -> ucs_status_t;
    pub fn ucp_worker_destroy(worker: ucp_worker_h);
    pub fn ucp_worker_query(worker: ucp_worker_h, attr: *mut ucp_worker_attr_t) -> ucs_status_t;
    pub fn ucp_worker_get_address(worker: ucp_worker_h, address_p: *mut *mut ucp_address, address_length_p: *mut usize) -> ucs_status_t;
    pub fn ucp_worker_release_address(worker: ucp_worker_h, address: *mut ucp_address);
    pub fn ucp_worker_progress(worker: ucp_worker_h) -> c_uint;
    pub fn ucp_worker_get_efd(worker: ucp_worker_h, fd: *mut c_int) -> ucs_status_t;
    pub fn ucp_worker_arm(worker: ucp_worker_h) -> ucs_status_t;
    pub fn ucp_worker_signal(worker: ucp_worker_h) -> ucs_status_t;
    pub fn ucp_worker_fence(worker: ucp_worker_h) -> ucs_status_t;
    pub fn ucp_worker_flush_nbx(worker: ucp_worker_h, param: *const ucp_request_param_t) -> ucs_status_ptr_t;

    pub fn ucp_ep_create(worker: ucp_worker_h, params: *const ucp_ep_params_t, ep_p: *mut ucp_ep_h) -> ucs_status_t;
    pub fn ucp_ep_close_nbx(ep: ucp_ep_h, param: *const ucp_request_param_t) -> ucs_status_ptr_t;
    pub fn ucp_ep_flush_nbx(ep: ucp_ep_h, param: *const ucp_request_param_t) -> ucs_status_ptr_t;

    pub fn ucp_mem_map(context: ucp_context_h, params: *const ucp_mem_map_params_t, memh_p: *mut ucp_mem_h) -> ucs_status_t;
    pub fn ucp_mem_unmap(context: ucp_context_h, memh: ucp_mem_h) -> ucs_status_t;
    pub fn ucp_rkey_pack(context: ucp_context_h, memh: ucp_mem_h, rkey_buffer_p: *mut *mut c_void, size_p: *mut usize) -> ucs_status_t;
    pub fn ucp_rkey_buffer_release(rkey_buffer: *mut c_void);
    pub fn ucp_ep_rkey_unpack(ep: ucp_ep_h, rkey_buffer: *const c_void, rkey_p: *mut ucp_rkey_h) -> ucs_status_t;
    pub fn ucp_rkey_destroy(rkey: ucp_rkey_h);

    pub fn ucp_put_nbx(
        ep: ucp_ep_h,
        buffer: *const c_void,
        count: usize,
        remote_addr: u64,
        rkey: ucp_rkey_h,
        param: *const ucp_request_param_t,
    ) -> ucs_status_ptr_t;
    pub fn ucp_get_nbx(
        ep: ucp_ep_h,
        buffer: *mut c_void,
        count: usize,
        remote_addr: u64,
        rkey: ucp_rkey_h,
        param: *const ucp_request_param_t,
    ) -> ucs_status_ptr_t;
    pub fn ucp_atomic_op_nbx(
        ep: ucp_ep_h,
        opcode: ucp_atomic_op_t,
        buffer: *const c_void,
        count: usize,
        remote_addr: u64,
        rkey: ucp_rkey_h,
        param: *const ucp_request_param_t,
    ) -> ucs_status_ptr_t;
    pub fn ucp_request_check_status(request: *mut c_void) -> ucs_status_t;
    pub fn ucp_request_free(request: *mut c_void);
}
