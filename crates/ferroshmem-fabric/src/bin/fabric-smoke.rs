//! Smoke test of ferroshmem-fabric across two processes, started by `mpirun -n 2`:
//!
//! Both ranks map a buffer (a 4 KiB header page of words, then 1 MiB of data) and exchange
//! worker address, buffer address and packed rkey through PMIx. Rank 1 then runs a progress
//! thread sleeping on the worker's event descriptor while its main thread computes for 2 s
//! without calling UCX; rank 0 meanwhile does 1000 8-byte gets, 1000 fetch-adds, 1000
//! 8-byte blocking puts, a set of 32- and 64-bit atomics, and a 1 MiB put verified by a get.
//! Rank 1 checks, at the end of its compute phase and again after a fence, that everything
//! landed, and that its progress thread was mostly asleep. Every check prints `check NAME ok`
//! (or `FAILED`); the process exits 0 only if all of its checks hold.
#![allow(unsafe_code)]
// The explicit drops order the teardown; built without UCX the types have no Drop impl.
#![allow(clippy::drop_non_drop)]

use ferroshmem_fabric::pmix::Pmix;
use ferroshmem_fabric::ucp::{AtomicOp, Context, Endpoint, Features, MemRegion, RemoteKey, ThreadMode, Worker};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const HEADER: usize = 4096;
const DATA: usize = 1 << 20;
const OPS: usize = 1000;
const COMPUTE: Duration = Duration::from_secs(2);

// Offsets of the header words.
const COUNTER: usize = 0; // u64, fetch-added OPS times by rank 0
const GET_WORD: usize = 8; // u64, read by the gets
const PUT_WORD: usize = 16; // u64, written by the small puts
const AMO64: usize = 24; // u64 for the 64-bit atomic checks
const AMO32: usize = 32; // u32 for the 32-bit atomic checks
const GET_MAGIC: u64 = 0xfeed_face_1234_5678;

fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(31) ^ (i >> 9)) as u8
}

struct Checks {
    rank: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, name: &str, ok: bool, detail: impl std::fmt::Display) {
        if ok {
            println!("rank {}: check {name} ok ({detail})", self.rank);
        } else {
            println!("rank {}: check {name} FAILED ({detail})", self.rank);
            self.failed += 1;
        }
    }
}

/// The mapped buffer: anonymous memory read and written only through raw pointers (peers
/// write it at any time).
struct Buffer {
    base: *mut u8,
    len: usize,
}

impl Buffer {
    fn new(len: usize) -> Buffer {
        // SAFETY: anonymous private mapping, no address hint; checked for failure.
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        };
        assert!(p != libc::MAP_FAILED, "mmap of {len} bytes failed");
        Buffer { base: p.cast(), len }
    }
    fn read_u64(&self, off: usize) -> u64 {
        assert!(off + 8 <= self.len && off & 7 == 0);
        // SAFETY: in bounds and aligned; volatile since the network writes it behind our back.
        unsafe { std::ptr::read_volatile(self.base.add(off).cast::<u64>()) }
    }
    fn write_u64(&self, off: usize, v: u64) {
        assert!(off + 8 <= self.len && off & 7 == 0);
        // SAFETY: as in read_u64.
        unsafe { std::ptr::write_volatile(self.base.add(off).cast::<u64>(), v) }
    }
    fn read_byte(&self, off: usize) -> u8 {
        assert!(off < self.len);
        // SAFETY: in bounds; volatile as above.
        unsafe { std::ptr::read_volatile(self.base.add(off)) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: our own mapping, unmapped once, after the MemRegion over it (declared later,
        // dropped first).
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

fn median_us(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e6
}

fn thread_cpu() -> Duration {
    // SAFETY: getrusage fills the zeroed struct; RUSAGE_THREAD is Linux's per-thread usage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointer.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

struct ProgressStats {
    cpu: Duration,
    wakeups: u64,
    busy: u64,
}

/// The progress thread: progress until idle, arm, sleep on the event descriptor; re-progress
/// when arming finds events pending. Stops when `stop` is set (and the worker signalled).
fn progress_thread(worker: Arc<Worker>, stop: Arc<AtomicBool>) -> ProgressStats {
    let fd = worker.event_fd().expect("event fd");
    let (mut wakeups, mut busy) = (0u64, 0u64);
    loop {
        while worker.progress() > 0 {}
        if stop.load(Ordering::Acquire) {
            break;
        }
        match worker.arm() {
            Ok(true) => {
                let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
                // SAFETY: one valid pollfd; the descriptor is owned by the worker, alive.
                let n = unsafe { libc::poll(&mut pfd, 1, -1) };
                if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                    panic!("poll on the UCX event fd: {}", std::io::Error::last_os_error());
                }
                wakeups += 1;
            }
            Ok(false) => busy += 1,
            Err(e) => panic!("{e}"),
        }
    }
    ProgressStats { cpu: thread_cpu(), wakeups, busy }
}

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(n) => {
            eprintln!("fabric-smoke: {n} check(s) failed");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("fabric-smoke: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<u32, Box<dyn std::error::Error>> {
    if !Pmix::launched_by_pmix() {
        return Err("not started by a PMIx launcher: run under `mpirun -n 2`".into());
    }
    let pmix = Pmix::init()?;
    let rank = pmix.rank();
    let size = pmix.job_size()?;
    if size != 2 {
        return Err(format!("needs exactly 2 processes, job has {size}").into());
    }
    let mut ck = Checks { rank, failed: 0 };
    println!(
        "rank {rank}: namespace {} host {} node {} local rank {} of {} peers {:?} tls {}",
        pmix.namespace(),
        pmix.hostname(rank)?,
        pmix.node_id(rank)?,
        pmix.local_rank()?,
        pmix.local_size()?,
        pmix.local_peers()?,
        std::env::var("UCX_TLS").unwrap_or_else(|_| "(default)".into())
    );

    let ctx = Context::new(Features::RMA | Features::AMO64 | Features::AMO32 | Features::WAKEUP)?;
    let worker = Arc::new(Worker::new(&ctx, ThreadMode::Multi)?);
    ck.check("thread mode", worker.thread_mode() == ThreadMode::Multi, format!("{:?}", worker.thread_mode()));
    let buf = Buffer::new(HEADER + DATA);
    buf.write_u64(GET_WORD, GET_MAGIC + u64::from(rank));
    // SAFETY: the buffer outlives the region (dropped in reverse order of declaration) and is
    // accessed only through volatile raw-pointer reads and writes.
    let region = unsafe { MemRegion::map(&ctx, buf.base, buf.len) }?;

    pmix.put_bytes("fabric.addr", &worker.address()?)?;
    pmix.put_bytes("fabric.base", &(buf.base as u64).to_le_bytes())?;
    pmix.put_bytes("fabric.rkey", &region.pack_rkey()?)?;
    pmix.commit()?;
    pmix.fence_collect()?;
    let peer = 1 - rank;
    println!("rank {rank}: peer {peer} on host {} node {}", pmix.hostname(peer)?, pmix.node_id(peer)?);
    let peer_addr = pmix.get_bytes(peer, "fabric.addr")?;
    let peer_base = u64::from_le_bytes(pmix.get_bytes(peer, "fabric.base")?.try_into().map_err(|_| "bad fabric.base")?);
    let ep = Endpoint::connect(&worker, &peer_addr)?;
    let rkey = RemoteKey::unpack(&ep, &pmix.get_bytes(peer, "fabric.rkey")?)?;

    if rank == 1 {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (w, s) = (worker.clone(), stop.clone());
            std::thread::Builder::new().name("ucx-progress".into()).spawn(move || progress_thread(w, s))?
        };
        pmix.fence()?; // start: rank 0 begins its operations now
        let t0 = Instant::now();
        let mut spins = 0u64;
        while t0.elapsed() < COMPUTE {
            spins += 1; // compute: read the clock, never call UCX
        }
        // What landed while this thread computed (nothing here called UCX).
        let counter = buf.read_u64(COUNTER);
        ck.check("fadd total at end of compute", counter == OPS as u64, format!("counter {counter}, {spins} clock reads"));
        let bad = (0..DATA).filter(|&i| buf.read_byte(HEADER + i) != pattern(i)).count();
        ck.check("1 MiB put landed during compute", bad == 0, format!("{bad} bytes differ"));
        let put_word = buf.read_u64(PUT_WORD);
        ck.check("small puts landed", put_word == OPS as u64 - 1, format!("last value {put_word}"));

        pmix.fence()?; // rank 0 done
        let counter = buf.read_u64(COUNTER);
        ck.check("fadd total after fence", counter == OPS as u64, format!("counter {counter}"));

        stop.store(true, Ordering::Release);
        worker.signal()?;
        let stats = thread.join().map_err(|_| "progress thread panicked")?;
        ck.check(
            "progress thread mostly asleep",
            stats.cpu < COMPUTE / 10,
            format!("cpu {:.1} ms over {:.1} s, {} wakeups, {} busy arms", stats.cpu.as_secs_f64() * 1e3, t0.elapsed().as_secs_f64(), stats.wakeups, stats.busy),
        );
    } else {
        pmix.fence()?; // start
        let t0 = Instant::now();
        let mut word = [0u8; 8];

        // 1000 gets of 8 bytes.
        let mut lat = Vec::with_capacity(OPS);
        let mut wrong = 0;
        for _ in 0..OPS {
            let t = Instant::now();
            ep.get(&mut word, peer_base + GET_WORD as u64, &rkey)?;
            lat.push(t.elapsed());
            wrong += usize::from(u64::from_le_bytes(word) != GET_MAGIC + 1);
        }
        let get_us = median_us(lat);
        ck.check("gets", wrong == 0, format!("{OPS} x 8 B, {wrong} wrong, median {get_us:.1} us"));

        // 1000 fetch-adds: the fetched values are 0, 1, 2, ...
        let mut lat = Vec::with_capacity(OPS);
        let mut wrong = 0;
        for i in 0..OPS as u64 {
            let t = Instant::now();
            let old = ep.atomic_fetch(AtomicOp::Add, 1u64, peer_base + COUNTER as u64, &rkey)?;
            lat.push(t.elapsed());
            wrong += usize::from(old != i);
        }
        let fadd_us = median_us(lat);
        ck.check("fetch-adds", wrong == 0, format!("{OPS} x u64, {wrong} out of sequence, median {fadd_us:.1} us"));

        // 1000 blocking 8-byte puts (put + endpoint flush: written at the target on return).
        let mut lat = Vec::with_capacity(OPS);
        for i in 0..OPS as u64 {
            let t = Instant::now();
            ep.put_blocking(&i.to_le_bytes(), peer_base + PUT_WORD as u64, &rkey)?;
            lat.push(t.elapsed());
        }
        let put_us = median_us(lat);
        ep.get(&mut word, peer_base + PUT_WORD as u64, &rkey)?;
        let last = u64::from_le_bytes(word);
        ck.check("blocking puts", last == OPS as u64 - 1, format!("{OPS} x 8 B, last {last}, median put+flush {put_us:.1} us"));

        // 64-bit atomics: swap, compare-swap (hit and miss), or, and, xor.
        let a64 = peer_base + AMO64 as u64;
        let r = [
            ep.atomic_fetch(AtomicOp::Swap, 0x1111u64, a64, &rkey)?,
            ep.compare_swap(0x1111u64, 0x2222, a64, &rkey)?,
            ep.compare_swap(0x1111u64, 0x3333, a64, &rkey)?,
            ep.atomic_fetch(AtomicOp::Or, 0xf0u64, a64, &rkey)?,
            ep.atomic_fetch(AtomicOp::And, 0xffu64, a64, &rkey)?,
            ep.atomic_fetch(AtomicOp::Xor, 0xffu64, a64, &rkey)?,
        ];
        ep.get(&mut word, a64, &rkey)?;
        let fin = u64::from_le_bytes(word);
        let want = [0, 0x1111, 0x2222, 0x2222, 0x22f2, 0xf2];
        ck.check("64-bit atomics", r == want && fin == 0x0d, format!("fetched {r:x?}, final {fin:#x}"));

        // 32-bit atomics: three non-fetching adds, flush, fetch, compare-swap, swap post.
        let a32 = peer_base + AMO32 as u64;
        for _ in 0..3 {
            ep.atomic_post(AtomicOp::Add, 5u32, a32, &rkey)?;
        }
        ep.flush()?;
        let sum = ep.atomic_fetch(AtomicOp::Add, 0u32, a32, &rkey)?;
        let old = ep.compare_swap(15u32, 7, a32, &rkey)?;
        ep.atomic_post(AtomicOp::Xor, 0xf0u32, a32, &rkey)?;
        ep.flush()?;
        let mut w4 = [0u8; 4];
        ep.get(&mut w4, a32, &rkey)?;
        let fin = u32::from_le_bytes(w4);
        ck.check("32-bit atomics", sum == 15 && old == 15 && fin == 0xf7, format!("sum {sum}, cswap old {old}, final {fin:#x}"));

        // 1 MiB put (non-blocking + flush), verified by a 1 MiB get.
        let src: Vec<u8> = (0..DATA).map(pattern).collect();
        let t = Instant::now();
        ep.put_nbi(&src, peer_base + HEADER as u64, &rkey)?;
        ep.flush()?;
        let put_t = t.elapsed();
        let mut back = vec![0u8; DATA];
        let t = Instant::now();
        ep.get(&mut back, peer_base + HEADER as u64, &rkey)?;
        let get_t = t.elapsed();
        let mbs = |d: Duration| DATA as f64 / d.as_secs_f64() / 1e6;
        ck.check(
            "1 MiB put verified by get",
            back == src,
            format!("put+flush {:.2} ms ({:.0} MB/s), get {:.2} ms ({:.0} MB/s)", put_t.as_secs_f64() * 1e3, mbs(put_t), get_t.as_secs_f64() * 1e3, mbs(get_t)),
        );
        worker.flush()?;
        worker.fence()?;

        let done = t0.elapsed();
        ck.check("finished long before the peer's compute ended", done < COMPUTE / 2, format!("{:.1} ms of {} ms", done.as_secs_f64() * 1e3, COMPUTE.as_millis()));
        println!("rank 0: median latency over {OPS} ops: get 8 B {get_us:.1} us, fetch-add u64 {fadd_us:.1} us, put 8 B + flush {put_us:.1} us");
        pmix.fence()?; // done
    }

    drop(rkey);
    drop(ep);
    pmix.fence()?; // both closed their endpoints before either tears its worker down
    drop(region);
    drop(worker);
    drop(ctx);
    drop(buf);
    pmix.finalize()?;
    Ok(ck.failed)
}
