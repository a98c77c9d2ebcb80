//! How a PE learns who it is, where the other PEs run, and gets its host's job file.
//!
//! Three launchers, one result ([`Attached`]):
//! - **oshrun** (one host): the job file's descriptor and the PE number are inherited
//!   (`FERROSHMEM_JOB_FD`, `FERROSHMEM_PE`); every PE is on this host.
//! - **A PMIx launcher** (Open MPI's `mpirun`, `srun --mpi=pmix`, PRRTE; also what
//!   `oshrun --host` hands over to): rank, job size and every rank's node id come from PMIx.
//!   On each host the first PE (in world order) creates the host's job file and publishes
//!   its process id and descriptor number through PMIx; the host's other PEs open it through
//!   `/proc/PID/fd/N` after the fence. The file is a memfd, so nothing named is left behind
//!   whatever happens. Every host's file has the layout of the whole job (sparse: only the
//!   local PEs' parts become memory), so the address arithmetic of one host holds unchanged.
//! - **Alone**: a program started by itself is a job of one PE.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, IntoRawFd};

use crate::error::{Error, Result};
use crate::job::{self, JobFile, Layout};
use crate::settings::{self, Agreed};
use crate::topology::Topology;

pub(crate) use ferroshmem_wire::pmix::Pmix;

/// What the launcher gave this PE.
#[derive(Debug)]
pub(crate) struct Attached {
    pub job: JobFile,
    pub my_pe: usize,
    pub topology: Topology,
    /// The PMIx client when a PMIx launcher started the job (kept for the transport's
    /// address exchange and for the life of the process).
    pub pmix: Option<Pmix>,
}

/// PMIx key under which a host's first PE publishes "pid:fd" of the host's job file.
const JOB_FILE_KEY: &str = "ferroshmem.jobfile";
/// PMIx key under which every PE publishes its node id.
const NODE_KEY: &str = "ferroshmem.node";
/// PMIx key under which PE 0 publishes the job's agreed settings (`crate::settings`).
const SETTINGS_KEY: &str = "ferroshmem.settings";

fn env_usize(name: &str) -> Result<Option<usize>> {
    match std::env::var(name) {
        Err(_) => Ok(None),
        Ok(v) => job::parse_size(&v).map(Some).ok_or_else(|| {
            Error::bootstrap(format!("{name}={v:?} is not a size (examples: 65536, 512M, 2G)"))
        }),
    }
}

/// The layout this job asks for through the environment, for `n_pes` PEs.
fn requested_layout(n_pes: usize) -> Result<Layout> {
    let heap = env_usize(job::ENV_SYMMETRIC_SIZE)?.unwrap_or(job::DEFAULT_HEAP_SIZE);
    let slots = env_usize(job::ENV_TEAM_SLOTS)?.unwrap_or(job::DEFAULT_TEAM_SLOTS);
    Layout::new(n_pes, heap, slots)
}

/// Attaches to the job this process was started in.
pub(crate) fn attach() -> Result<Attached> {
    let oshrun_fd = std::env::var(job::ENV_JOB_FD).ok();
    if oshrun_fd.is_none() && Pmix::launched_by_pmix() {
        return attach_pmix();
    }
    // oshrun starts every PE with its own environment, and a PE alone is the whole job: this
    // process's settings are the job's (under PMIx they are PE 0's, see `attach_pmix`).
    settings::agree(Agreed::from_env());
    if let Some(fd_text) = oshrun_fd {
        return attach_oshrun(&fd_text);
    }
    refuse_other_launchers()?;
    let file = JobFile::create(requested_layout(1)?)?;
    rustix::io::fcntl_setfd(file.fd(), rustix::io::FdFlags::CLOEXEC)
        .map_err(|e| Error::bootstrap_os("fcntl", e))?;
    Ok(Attached { job: file, my_pe: 0, topology: Topology::single_host(1, 0), pmix: None })
}

/// Launchers whose task variables say that this process is one task of several: the
/// launcher, the variable giving the number of tasks, one that must be set beside it (srun
/// sets `SLURM_PROCID` for each task of a step; an allocation's shell has task counts but no
/// step), and what to run instead. Without PMIx (or oshrun's job file) this process could only
/// be a job of one PE: N of them would each run the whole program alone, and print as many
/// "results" (`srun --mpi=none` did, and so would `--mpi=pmi2`, the default of sites whose
/// `MpiDefault` is not pmix).
const OTHER_LAUNCHERS: &[(&str, &str, Option<&str>, &str)] = &[
    ("Slurm's srun", "SLURM_STEP_NUM_TASKS", Some("SLURM_PROCID"), "srun --mpi=pmix"),
    (
        "Open MPI's mpirun",
        "OMPI_COMM_WORLD_SIZE",
        None,
        "mpirun from an Open MPI with PMIx, or oshrun --host",
    ),
    ("a PMI launcher", "PMI_SIZE", None, "srun --mpi=pmix, mpirun (Open MPI), or oshrun"),
];

/// Fails when a launcher without PMIx started this process as one of several tasks (see
/// [`OTHER_LAUNCHERS`]); a program started alone (even inside an allocation) is one PE.
fn refuse_other_launchers() -> Result<()> {
    for &(launcher, var, beside, instead) in OTHER_LAUNCHERS {
        let tasks = std::env::var(var).ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(0);
        if tasks > 1 && beside.is_none_or(|b| std::env::var_os(b).is_some()) {
            return Err(Error::bootstrap(format!(
                "started by {launcher} as one of {tasks} tasks ({var}={tasks}) without PMIx: \
                 the PEs of a job find each other through PMIx, so each task would run alone as a \
                 job of one PE; start the job with {instead}"
            )));
        }
    }
    Ok(())
}

fn attach_oshrun(fd_text: &str) -> Result<Attached> {
    let fd: i32 = fd_text
        .parse()
        .map_err(|_| Error::bootstrap(format!("{}={fd_text:?} is not a descriptor", job::ENV_JOB_FD)))?;
    let pe: usize = std::env::var(job::ENV_PE)
        .ok()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| Error::bootstrap(format!("{} is missing or not a number", job::ENV_PE)))?;
    // Children of this PE (if it runs programs) must not think they are PEs of this job.
    std::env::remove_var(job::ENV_JOB_FD);
    let file = JobFile::from_inherited(fd)?;
    let n = file.layout().n_pes;
    if pe >= n {
        return Err(Error::bootstrap(format!("PE {pe} but the job has {n} PEs")));
    }
    Ok(Attached { job: file, my_pe: pe, topology: Topology::single_host(n, pe), pmix: None })
}

fn pmix_error(what: &str, e: ferroshmem_wire::Error) -> Error {
    Error::bootstrap_transport(format!("PMIx: {what}"), e)
}

fn attach_pmix() -> Result<Attached> {
    let pmix = Pmix::init().map_err(|e| pmix_error("init", e))?;
    let my_pe = pmix.rank() as usize;
    let n_pes = pmix.job_size() as usize;
    if my_pe >= n_pes {
        return Err(Error::bootstrap(format!("PMIx says rank {my_pe} of a job of {n_pes}")));
    }
    // Launchers give PMIX_NODEID for a PE's own rank (Open MPI 4.1 not for others): every PE
    // posts its own, with its host's name (for hang reports), and one collecting fence tells
    // everybody where everybody runs.
    let mine = pmix.node_id(my_pe as u32).map_err(|e| pmix_error("node id", e))?;
    // The host's first PE by the launcher's local rank creates the host's job file before the
    // first fence and posts where it is with its host id: one collecting fence, where waiting
    // for the ids to pick the creator took two (a fence at 64 simulated hosts costs a few
    // hundred milliseconds). Each PE posts its local rank beside its host id (a launcher
    // need not answer for other ranks); without one, the host's first PE after a second fence.
    let local = pmix.local_rank(my_pe as u32).unwrap_or(u32::MAX);
    let mut note = mine.to_le_bytes().to_vec();
    note.extend_from_slice(&local.to_le_bytes());
    note.extend_from_slice(rustix::system::uname().nodename().to_bytes());
    pmix.put_bytes(NODE_KEY, &note).map_err(|e| pmix_error("put", e))?;
    if my_pe == 0 {
        // PE 0's settings are the job's (`crate::settings`): published with the notes.
        pmix.put_bytes(SETTINGS_KEY, &Agreed::from_env().encode()).map_err(|e| pmix_error("put", e))?;
    }
    let mut created = None;
    if local == 0 {
        created = Some(create_job_file(&pmix, n_pes)?);
    }
    pmix.commit().map_err(|e| pmix_error("commit", e))?;
    pmix.fence_collect().map_err(|e| pmix_error("fence", e))?;
    let published = pmix.get_bytes(0, SETTINGS_KEY).map_err(|e| pmix_error("settings of PE 0", e))?;
    settings::agree(
        Agreed::decode(&published)
            .ok_or_else(|| Error::bootstrap("PE 0 published settings this build cannot read"))?,
    );
    let word =
        |b: &[u8], at: usize| b.get(at..at + 4).and_then(|w| w.try_into().ok()).map(u32::from_le_bytes);
    let notes = (0..n_pes)
        .map(|r| {
            let b = pmix.get_bytes(r as u32, NODE_KEY).map_err(|e| pmix_error("node ids", e))?;
            match (word(&b, 0), word(&b, 4)) {
                (Some(id), Some(local)) => Ok((id, local, String::from_utf8_lossy(&b[8..]).into_owned())),
                _ => Err(Error::bootstrap(format!("PE {r} published a malformed node id"))),
            }
        })
        .collect::<Result<Vec<(u32, u32, String)>>>()?;
    let ids: Vec<u32> = notes.iter().map(|n| n.0).collect();
    let names: Vec<String> = notes.iter().map(|n| n.2.clone()).collect();
    let topology = Topology::from_host_ids(&ids, my_pe).with_names(&names);
    // Who created this host's job file: its PE of local rank 0 (the same answer on every PE
    // of the host, read from the same notes), else its first PE, after a second fence.
    let claims: Vec<usize> = topology.local_pes().iter().copied().filter(|&pe| notes[pe].1 == 0).collect();
    let creator = match claims[..] {
        [pe] => pe,
        _ => {
            let leader = topology.local_pes()[0];
            if my_pe == leader && created.is_none() {
                created = Some(create_job_file(&pmix, n_pes)?);
            }
            pmix.commit().map_err(|e| pmix_error("commit", e))?;
            pmix.fence_collect().map_err(|e| pmix_error("fence", e))?;
            leader
        }
    };
    let file = match created {
        Some(file) => file,
        None => {
            let note = pmix.get_bytes(creator as u32, JOB_FILE_KEY).map_err(|e| pmix_error("get", e))?;
            let note = String::from_utf8_lossy(&note).into_owned();
            let path =
                note.split_once(':').map(|(pid, fd)| format!("/proc/{pid}/fd/{fd}")).ok_or_else(|| {
                    Error::bootstrap(format!("PE {creator} published {note:?} for the job file"))
                })?;
            let fd = rustix::fs::open(&path, rustix::fs::OFlags::RDWR | rustix::fs::OFlags::CLOEXEC, rustix::fs::Mode::empty())
                .map_err(|e| {
                    Error::bootstrap(format!(
                        "opening the host's job file {path} of PE {creator}: {e} (PEs of one host must see each other's /proc)"
                    ))
                })?;
            JobFile::from_inherited(fd.into_raw_fd())?
        }
    };
    Ok(Attached { job: file, my_pe, topology, pmix: Some(pmix) })
}

/// Creates this host's job file and posts where it is (`pid:fd`, opened through /proc by the
/// host's other PEs) for the next collecting fence.
fn create_job_file(pmix: &Pmix, n_pes: usize) -> Result<JobFile> {
    let file = JobFile::create_with_cores(requested_layout(n_pes)?, online_cpus())?;
    let note = format!("{}:{}", std::process::id(), file.fd().as_raw_fd());
    pmix.put_bytes(JOB_FILE_KEY, note.as_bytes()).map_err(|e| pmix_error("put", e))?;
    Ok(file)
}

/// Online CPUs of this host (not this process's affinity: a launcher that binds each PE to a
/// core would otherwise make its host look like one core).
fn online_cpus() -> usize {
    // SAFETY: sysconf only reads a system value.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as usize
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}
