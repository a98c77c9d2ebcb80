//! The PMIx client: this process's place in its job (rank, sizes, hosts) and the key-value
//! exchange with fences that bootstraps the network.
//!
//! One [`Pmix`] per process is the intended use (PMIx counts `PMIx_Init` calls, so a second one
//! works but shares the same client). All calls are thread-safe: PMIx hands every blocking call
//! to its own progress thread and waits for the answer.
#![cfg_attr(fabric, allow(unsafe_code))]

use crate::{Error, Result};

/// Whether the environment says a PMIx server started this process (`PMIX_NAMESPACE` and
/// `PMIX_RANK` set, or some `PMIX_SERVER_URI*`), without calling into PMIx. Works also when
/// built without PMIx.
pub fn launched_by_pmix() -> bool {
    launched_by_pmix_in(std::env::vars_os().map(|(k, _)| k))
}

fn launched_by_pmix_in(keys: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let (mut ns, mut rank, mut uri) = (false, false, false);
    for k in keys {
        match k.to_str() {
            Some("PMIX_NAMESPACE") => ns = true,
            Some("PMIX_RANK") => rank = true,
            Some(s) if s.starts_with("PMIX_SERVER_URI") => uri = true,
            _ => {}
        }
    }
    (ns && rank) || uri
}

/// PMIx's text for a status (`PMIx_Error_string`).
pub fn status_text(status: i32) -> String {
    #[cfg(fabric)]
    {
        // SAFETY: PMIx_Error_string takes any status and returns a pointer to a static,
        // NUL-terminated string (or NULL, handled), never freed.
        let p = unsafe { crate::pmix_sys::PMIx_Error_string(status) };
        if !p.is_null() {
            // SAFETY: non-null, NUL-terminated, static (see above).
            return unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned();
        }
    }
    format!("PMIx status {status}")
}

/// This process's PMIx client. `PMIx_Finalize` runs on drop or in [`Pmix::finalize`].
#[derive(Debug)]
pub struct Pmix {
    #[cfg(fabric)]
    imp: imp::Client,
    #[cfg(not(fabric))]
    never: std::convert::Infallible,
}

impl Pmix {
    /// Connects to the PMIx server that started this process (`PMIx_Init`).
    pub fn init() -> Result<Pmix> {
        #[cfg(fabric)]
        return imp::Client::init().map(|imp| Pmix { imp });
        #[cfg(not(fabric))]
        Err(Error::Unavailable)
    }

    /// See [`launched_by_pmix`].
    pub fn launched_by_pmix() -> bool {
        launched_by_pmix()
    }

    /// This process's rank in its namespace.
    pub fn rank(&self) -> u32 {
        #[cfg(fabric)]
        return self.imp.me.rank;
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// This process's namespace (the job's name).
    pub fn namespace(&self) -> String {
        #[cfg(fabric)]
        return self.imp.namespace();
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// Number of processes in the job (`PMIX_JOB_SIZE` of the wildcard rank).
    pub fn job_size(&self) -> Result<u32> {
        #[cfg(fabric)]
        return self.imp.get_uint(None, crate::pmix_sys::PMIX_JOB_SIZE).map(|v| v as u32);
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// This process's rank among the job's processes on its node (`PMIX_LOCAL_RANK`).
    pub fn local_rank(&self) -> Result<u16> {
        #[cfg(fabric)]
        return self.imp.get_uint(Some(self.imp.me.rank), crate::pmix_sys::PMIX_LOCAL_RANK).and_then(|v| {
            u16::try_from(v).map_err(|_| Error::BadValue { key: "pmix.lrank".into() })
        });
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// Number of the job's processes on this node (`PMIX_LOCAL_SIZE`).
    pub fn local_size(&self) -> Result<u32> {
        #[cfg(fabric)]
        return self.imp.get_uint(None, crate::pmix_sys::PMIX_LOCAL_SIZE).map(|v| v as u32);
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// Ranks of the job's processes on this node, this one included (`PMIX_LOCAL_PEERS`, a
    /// comma-separated string), in PMIx's order.
    pub fn local_peers(&self) -> Result<Vec<u32>> {
        #[cfg(fabric)]
        return {
            let s = self.imp.get_string(None, crate::pmix_sys::PMIX_LOCAL_PEERS)?;
            parse_peers(&s).ok_or_else(|| Error::BadValue { key: "pmix.lpeers".into() })
        };
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// Identifier of the node `rank` runs on (`PMIX_NODEID`): equal for processes on one node.
    pub fn node_id(&self, rank: u32) -> Result<u32> {
        #[cfg(fabric)]
        return self.imp.get_uint(Some(rank), crate::pmix_sys::PMIX_NODEID).map(|v| v as u32);
        #[cfg(not(fabric))]
        {
            let _ = rank;
            match self.never {}
        }
    }

    /// Name of the host `rank` runs on (`PMIX_HOSTNAME`).
    pub fn hostname(&self, rank: u32) -> Result<String> {
        #[cfg(fabric)]
        return self.imp.get_string(Some(rank), crate::pmix_sys::PMIX_HOSTNAME);
        #[cfg(not(fabric))]
        {
            let _ = rank;
            match self.never {}
        }
    }

    /// Publishes `bytes` under `key` to every process of the job (`PMIX_GLOBAL` scope); other
    /// processes see it after [`commit`](Self::commit) and a [`fence_collect`](Self::fence_collect).
    /// PMIx copies the bytes. Keys longer than 511 bytes or holding NUL are `BadValue`.
    pub fn put_bytes(&self, key: &str, bytes: &[u8]) -> Result<()> {
        #[cfg(fabric)]
        return self.imp.put_bytes(key, bytes);
        #[cfg(not(fabric))]
        {
            let _ = (key, bytes);
            match self.never {}
        }
    }

    /// Pushes what was put to the local PMIx server (`PMIx_Commit`).
    pub fn commit(&self) -> Result<()> {
        #[cfg(fabric)]
        return self.imp.commit();
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// Barrier over the whole job that also exchanges every committed value
    /// (`PMIx_Fence` over the wildcard rank with `PMIX_COLLECT_DATA` = true).
    pub fn fence_collect(&self) -> Result<()> {
        #[cfg(fabric)]
        return self.imp.fence(true);
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// Barrier over the whole job, no data (`PMIx_Fence` over the wildcard rank).
    pub fn fence(&self) -> Result<()> {
        #[cfg(fabric)]
        return self.imp.fence(false);
        #[cfg(not(fabric))]
        match self.never {}
    }

    /// The bytes `rank` put under `key` (`PMIx_Get`; a byte object expected).
    pub fn get_bytes(&self, rank: u32, key: &str) -> Result<Vec<u8>> {
        #[cfg(fabric)]
        return self.imp.get_bytes(rank, key);
        #[cfg(not(fabric))]
        {
            let _ = (rank, key);
            match self.never {}
        }
    }

    /// Disconnects from the server (`PMIx_Finalize`) and reports its status; dropping does the
    /// same and ignores the status.
    pub fn finalize(self) -> Result<()> {
        #[cfg(fabric)]
        return self.imp.finalize();
        #[cfg(not(fabric))]
        match self.never {}
    }
}

/// Parses `PMIX_LOCAL_PEERS` ("0,1,2").
#[cfg_attr(not(fabric), allow(dead_code))]
fn parse_peers(s: &str) -> Option<Vec<u32>> {
    let s = s.trim();
    if s.is_empty() {
        return Some(Vec::new());
    }
    s.split(',').map(|p| p.trim().parse().ok()).collect()
}

#[cfg(fabric)]
mod imp {
    use super::*;
    use crate::pmix_sys::*;
    use std::ffi::{c_char, CStr, CString};

    #[derive(Debug)]
    pub(super) struct Client {
        pub(super) me: Proc,
        finalized: bool,
    }

    /// `pmix_proc_t` with Debug.
    #[derive(Clone, Copy)]
    pub(super) struct Proc(pmix_proc_t);
    impl std::ops::Deref for Proc {
        type Target = pmix_proc_t;
        fn deref(&self) -> &pmix_proc_t {
            &self.0
        }
    }
    impl std::fmt::Debug for Proc {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}:{}", nspace_str(&self.0), self.0.rank)
        }
    }

    fn nspace_str(p: &pmix_proc_t) -> String {
        let bytes: Vec<u8> = p.nspace.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn check(call: &'static str, rc: pmix_status_t) -> Result<()> {
        if rc == PMIX_SUCCESS {
            Ok(())
        } else {
            Err(Error::Pmix { call, status: rc })
        }
    }

    fn key_cstring(key: &str) -> Result<CString> {
        if key.len() > PMIX_MAX_KEYLEN {
            return Err(Error::BadValue { key: key.to_owned() });
        }
        CString::new(key).map_err(|_| Error::BadValue { key: key.to_owned() })
    }

    /// A value `PMIx_Get` allocated: its data is released with `PMIx_Value_destruct`, the
    /// struct with `free` (what the `PMIX_VALUE_RELEASE` macro does).
    struct Value(*mut pmix_value_t);
    impl Drop for Value {
        fn drop(&mut self) {
            // SAFETY: self.0 came from a successful PMIx_Get, which malloc'ed it; we release it
            // once, data first, as PMIX_VALUE_RELEASE does.
            unsafe {
                PMIx_Value_destruct(self.0);
                libc::free(self.0.cast());
            }
        }
    }
    impl Value {
        fn get(&self) -> &pmix_value_t {
            // SAFETY: non-null (checked in get) and owned by self until drop.
            unsafe { &*self.0 }
        }
    }

    impl Client {
        pub(super) fn init() -> Result<Client> {
            let mut me = pmix_proc_t::zeroed();
            // SAFETY: `me` is a valid out-parameter; no info array.
            check("PMIx_Init", unsafe { PMIx_Init(&mut me, std::ptr::null_mut(), 0) })?;
            Ok(Client { me: Proc(me), finalized: false })
        }

        pub(super) fn namespace(&self) -> String {
            nspace_str(&self.me)
        }

        fn proc_of(&self, rank: Option<u32>) -> pmix_proc_t {
            pmix_proc_t { nspace: self.me.nspace, rank: rank.unwrap_or(PMIX_RANK_WILDCARD) }
        }

        fn get(&self, rank: Option<u32>, key: &CStr) -> Result<Value> {
            let p = self.proc_of(rank);
            let mut v: *mut pmix_value_t = std::ptr::null_mut();
            // SAFETY: p and key are valid for the call; v is an out-parameter PMIx fills with
            // a malloc'ed value on success.
            let rc = unsafe { PMIx_Get(&p, key.as_ptr(), std::ptr::null(), 0, &mut v) };
            check("PMIx_Get", rc)?;
            if v.is_null() {
                return Err(Error::BadValue { key: key.to_string_lossy().into_owned() });
            }
            Ok(Value(v))
        }

        pub(super) fn get_uint(&self, rank: Option<u32>, key: &CStr) -> Result<u64> {
            let v = self.get(rank, key)?;
            let v = v.get();
            // SAFETY: each union member is read only under the type tag that says it is set.
            unsafe {
                match v.type_ {
                    PMIX_UINT16 => Ok(u64::from(v.data.uint16)),
                    PMIX_UINT32 => Ok(u64::from(v.data.uint32)),
                    PMIX_PROC_RANK => Ok(u64::from(v.data.rank)),
                    _ => Err(Error::BadValue { key: key.to_string_lossy().into_owned() }),
                }
            }
        }

        pub(super) fn get_string(&self, rank: Option<u32>, key: &CStr) -> Result<String> {
            let v = self.get(rank, key)?;
            let v = v.get();
            let bad = || Error::BadValue { key: key.to_string_lossy().into_owned() };
            if v.type_ != PMIX_STRING {
                return Err(bad());
            }
            // SAFETY: type tag PMIX_STRING: `string` is set, a NUL-terminated string owned by
            // the value (or NULL, handled), copied before the value is released.
            let s = unsafe { v.data.string };
            if s.is_null() {
                return Err(bad());
            }
            // SAFETY: see above.
            Ok(unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
        }

        pub(super) fn put_bytes(&self, key: &str, bytes: &[u8]) -> Result<()> {
            let k = key_cstring(key)?;
            let mut v = pmix_value_t {
                type_: PMIX_BYTE_OBJECT,
                data: pmix_value_data {
                    bo: pmix_byte_object_t { bytes: bytes.as_ptr() as *mut c_char, size: bytes.len() },
                },
            };
            // SAFETY: v points at `bytes`, alive for the call; PMIx_Put copies the value and
            // never writes through the pointer.
            check("PMIx_Put", unsafe { PMIx_Put(PMIX_GLOBAL, k.as_ptr(), &mut v) })
        }

        pub(super) fn commit(&self) -> Result<()> {
            // SAFETY: no arguments; PMIx is initialised while self lives.
            check("PMIx_Commit", unsafe { PMIx_Commit() })
        }

        pub(super) fn fence(&self, collect: bool) -> Result<()> {
            let all = self.proc_of(None);
            let info = pmix_info_t::boolean(PMIX_COLLECT_DATA, true);
            let (ip, n) = if collect { (&info as *const pmix_info_t, 1) } else { (std::ptr::null(), 0) };
            // SAFETY: `all` and `info` live across the blocking call.
            check("PMIx_Fence", unsafe { PMIx_Fence(&all, 1, ip, n) })
        }

        pub(super) fn get_bytes(&self, rank: u32, key: &str) -> Result<Vec<u8>> {
            let k = key_cstring(key)?;
            let v = self.get(Some(rank), &k)?;
            let v = v.get();
            if v.type_ != PMIX_BYTE_OBJECT {
                return Err(Error::BadValue { key: key.to_owned() });
            }
            // SAFETY: type tag PMIX_BYTE_OBJECT: `bo` is set, `size` bytes at `bytes` owned by
            // the value, copied before it is released.
            let bo = unsafe { v.data.bo };
            if bo.size == 0 {
                return Ok(Vec::new());
            }
            if bo.bytes.is_null() {
                return Err(Error::BadValue { key: key.to_owned() });
            }
            // SAFETY: see above.
            Ok(unsafe { std::slice::from_raw_parts(bo.bytes as *const u8, bo.size) }.to_vec())
        }

        pub(super) fn finalize(mut self) -> Result<()> {
            self.finalized = true;
            // SAFETY: matches our PMIx_Init, once.
            check("PMIx_Finalize", unsafe { PMIx_Finalize(std::ptr::null(), 0) })
        }
    }

    impl Drop for Client {
        fn drop(&mut self) {
            if !self.finalized {
                // SAFETY: matches our PMIx_Init, once.
                let _ = unsafe { PMIx_Finalize(std::ptr::null(), 0) };
            }
        }
    }

    // Client is Send + Sync without an unsafe impl: it holds only a copy of this process's
    // pmix_proc_t (bytes), and the PMIx client library is thread-safe (every API call is
    // thread-shifted to its own progress thread), so calls from any thread are allowed.
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_parse() {
        assert_eq!(parse_peers("0,1,2"), Some(vec![0, 1, 2]));
        assert_eq!(parse_peers(" 7 "), Some(vec![7]));
        assert_eq!(parse_peers(""), Some(vec![]));
        assert_eq!(parse_peers("0,x"), None);
    }

    #[test]
    fn launched_detection() {
        let v = |ks: &[&str]| launched_by_pmix_in(ks.iter().map(|s| std::ffi::OsString::from(*s)));
        assert!(v(&["PMIX_NAMESPACE", "PMIX_RANK"]));
        assert!(v(&["PMIX_SERVER_URI41"]));
        assert!(!v(&["PMIX_NAMESPACE"]));
        assert!(!v(&["HOME"]));
    }
}
