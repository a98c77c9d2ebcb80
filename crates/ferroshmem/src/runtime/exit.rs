//! The end of a PE: finalize, global exit, the fatal path and the one stderr reporter.
#![allow(unsafe_code)]

use std::sync::atomic::Ordering;

use super::{Runtime, RUNTIME};
use crate::error::Error;
use crate::job::HeaderView;

impl Runtime {
    /// Collective end of the OpenSHMEM part of the program.
    pub fn finalize(&self) {
        self.barrier_all_as("shmem_finalize");
        self.finalized.store(true, Ordering::SeqCst);
        self.publish_finished();
        // Under a PMIx launcher: every network operation is complete (the barrier quieted).
        // This PE stops running UCX, and a fence keeps every PE from exiting (closing its
        // connections) while another may still handle network traffic; UCX without error
        // handling ends a process whose peer vanished mid-protocol. The fence gives up after
        // a while, for programs whose PEs do not all finalize (a PE that returns early with a
        // status: the launcher then ends the job with it). Then tell the launcher this PE
        // ended properly, or it reports an abnormal end.
        let pmix = self.pmix.lock().unwrap_or_else(|e| e.into_inner()).take();
        match (pmix, &self.net) {
            (Some(pmix), Some(net)) => {
                net.stop_progress();
                match pmix.fence_timeout(FINALIZE_FENCE_MS) {
                    Ok(true) => drop(pmix),
                    _ => pmix.abandon(),
                }
            }
            (pmix, _) => drop(pmix),
        }
    }

    /// Finalizes at process exit if the program did not (C programs register this with atexit);
    /// nothing when leaving through a global exit, whose other PEs are being stopped anyway.
    pub fn finalize_at_exit(&self) {
        if !self.exiting.load(Ordering::SeqCst) && !self.finalized.load(Ordering::SeqCst) {
            self.finalize();
        }
    }

    /// Ends the whole job with `status` (shmem_global_exit): recorded for oshrun, which stops
    /// the other PEs, then this process exits (running atexit handlers, flushing stdio).
    pub fn global_exit(&self, status: i32) -> ! {
        self.exiting.store(true, Ordering::SeqCst);
        HeaderView::new(&self.map).request_exit(self.my_pe, status);
        std::process::exit(status)
    }
}

/// How long finalize waits for every PE of a job across hosts to finalize too.
const FINALIZE_FENCE_MS: u32 = 2000;

/// Status with which a PE ends the job after an error it cannot return to the caller.
pub const ERROR_EXIT_STATUS: i32 = 255;

/// Reports `err` on stderr, naming this PE, and ends the job. For C routines that return
/// nothing: the specification leaves their bad input undefined, and we prefer a clear stop.
#[cold]
pub fn fatal(err: &Error) -> ! {
    let p = RUNTIME.load(Ordering::Acquire);
    if p.is_null() {
        report_line(&format!("ferroshmem: {err}\n"));
        std::process::exit(ERROR_EXIT_STATUS);
    }
    // SAFETY: see `runtime`.
    let rt = unsafe { &*p };
    rt.report(format_args!("{err}"));
    if matches!(err, Error::Network { .. }) && rt.net.is_some() {
        // Most often the peer has just ended (a PE that returned a status, or died): its
        // launcher is ending the job with that PE's status and report. Give it the time to,
        // rather than ending the job first with ours.
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    rt.global_exit(ERROR_EXIT_STATUS)
}

impl Runtime {
    /// Prints `message` on stderr as a line naming this PE (`ferroshmem: PE n: ...`), in one
    /// write: the one reporter of the runtime and the C ABI.
    pub fn report(&self, message: std::fmt::Arguments) {
        report_line(&format!("ferroshmem: PE {}: {message}\n", self.my_pe));
    }
}

/// Writes a whole line to stderr in one write, so lines of different PEs never tear.
pub fn report_line(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}
