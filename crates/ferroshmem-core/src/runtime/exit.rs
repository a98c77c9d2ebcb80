//! The end of a PE: finalize (after its barrier, which is the team layer's: `team::world`),
//! global exit, the fatal path and the one stderr reporter.
#![allow(unsafe_code)]

use std::sync::atomic::Ordering;

use super::{Runtime, RUNTIME};
use crate::error::Error;
use crate::job::HeaderView;

impl Runtime {
    /// The end of `Runtime::finalize` after its closing barrier (which is the team layer's,
    /// `team::world`, over the world team): across hosts, the closing PMIx fence waits at most
    /// `limit` (`None`: until every PE is in it, however long a loaded machine takes).
    pub(crate) fn finish(&self, limit: Option<std::time::Duration>) {
        self.finalized.store(true, Ordering::SeqCst);
        self.publish_finished();
        // Under a PMIx launcher: every network operation is complete (the barrier quieted).
        // This PE stops running UCX, and a fence keeps every PE from exiting (closing its
        // connections) while another may still handle network traffic; UCX without error
        // handling ends a process whose peer vanished mid-protocol. The fence waits as long as
        // it takes when the program finalizes (a time limit turned correct programs into
        // failures on a loaded machine: the PE left without telling the launcher, which then
        // reported an improper exit); it gives up after a while only when a PE finalizes at
        // exit with a failure status (its peers may never come: the launcher ends the job
        // with the status). Then tell the launcher this PE ended properly, or it reports an
        // abnormal end.
        let pmix = self.pmix.lock().unwrap_or_else(|e| e.into_inner()).take();
        match (pmix, &self.net) {
            (Some(pmix), Some(net)) => {
                net.stop_progress();
                let met = match limit {
                    None => pmix.fence().is_ok(),
                    Some(limit) => {
                        let ms = u32::try_from(limit.as_millis()).unwrap_or(u32::MAX);
                        pmix.fence_timeout(ms).unwrap_or(false)
                    }
                };
                if met {
                    drop(pmix)
                } else {
                    pmix.abandon()
                }
            }
            (pmix, _) => drop(pmix),
        }
    }

    /// Whether the program has neither finalized nor begun a global exit (`Runtime::finalize_at_exit`
    /// then finalizes).
    pub(crate) fn unfinished(&self) -> bool {
        !self.exiting.load(Ordering::SeqCst) && !self.finalized.load(Ordering::SeqCst)
    }

    /// Ends the whole job with `status` (shmem_global_exit): recorded for oshrun, which stops
    /// the other PEs, then this process exits (running atexit handlers, flushing stdio).
    pub fn global_exit(&self, status: i32) -> ! {
        self.exiting.store(true, Ordering::SeqCst);
        HeaderView::new(&self.map).request_exit(self.my_pe, status);
        // Under a PMIx launcher, the launcher ends every host's PEs with our status (issue
        // 29: under srun a lone PE's exit ended its host's step only, and the others waited).
        // `try_lock`: a thread that holds the client (connecting a peer) may be the one that
        // failed; the exit below still ends this PE.
        if let Ok(guard) = self.pmix.try_lock() {
            if let Some(pmix) = guard.as_ref() {
                let _ = pmix.abort(
                    status,
                    &format!("ferroshmem: PE {} ended the job with status {status}", self.my_pe),
                );
            }
        }
        std::process::exit(status)
    }
}

/// How long the finalize at exit of a PE that exits with a failure status waits for the
/// other PEs of a job across hosts to finalize too.
pub(crate) const FAILED_EXIT_FENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// Status with which a PE ends the job after an error it cannot return to the caller.
pub const ERROR_EXIT_STATUS: i32 = 255;

/// Reports `err` on stderr, naming this PE, and ends the job. For C routines that return
/// nothing: the specification leaves their bad input undefined, and we prefer a clear stop.
#[cold]
pub fn fatal(err: &Error) -> ! {
    let p = RUNTIME.load(Ordering::Acquire);
    if p.is_null() {
        report_line(&format!("ferroshmem: {}\n", err.report()));
        std::process::exit(ERROR_EXIT_STATUS);
    }
    // SAFETY: see `runtime`.
    let rt = unsafe { &*p };
    rt.report(format_args!("{}", err.report()));
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
