//! The settings that choose an algorithm, or checked mode, and so must be equal on every PE,
//! or the PEs of a collective would take different forms of it and wait for each other for
//! ever (issue 30):
//! read once per job from **PE 0's** environment. Under a PMIx launcher PE 0 publishes them
//! before the first fence of start-up and every PE takes them from there (`bootstrap`), so a
//! variable set only where `mpirun` runs, or differently per host, cannot split the job; under
//! oshrun every PE is started with oshrun's environment, which is the same for all.
//!
//! The knobs are for measuring one form against another, not for programs:
//! `FSH_HIER_TREES_FROM` (leaders' trees from this many hosts on), `FSH_HIER_BROADCAST_RING=0`
//! (small broadcasts across hosts by staged exchanges, not rings), `FSH_ALLTOALL_IN_ORDER=0`
//! (no in-order alltoalls on one host), `FSH_DESTROY_SYNC=1` (a team destroyed across hosts
//! syncs instead of deferring its slot); and checked mode (`SHMEMX_CHECK_COLLECTIVES=1` or
//! `SHMEM_DEBUG=1`, whose messages stay each PE's own), in which every team call agrees.

use std::sync::OnceLock;

/// The agreed settings (see the module's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Agreed {
    /// From how many hosts on the leaders use trees for every collective (`None`: the plan's
    /// own thresholds).
    pub trees_from: Option<usize>,
    /// Small broadcasts across hosts take the rings.
    pub broadcast_ring: bool,
    /// In-order alltoalls on one host.
    pub alltoall_in_order: bool,
    /// Team destroys across hosts sync.
    pub destroy_sync: bool,
    /// Checked mode: collective calls are compared across PEs.
    pub checked: bool,
}

/// Environment variable: see the module's text.
pub(crate) const ENV_TREES_FROM: &str = "FSH_HIER_TREES_FROM";
/// Environment variable: see the module's text.
pub(crate) const ENV_BROADCAST_RING: &str = "FSH_HIER_BROADCAST_RING";
/// Environment variable: see the module's text.
pub(crate) const ENV_IN_ORDER: &str = "FSH_ALLTOALL_IN_ORDER";
/// Environment variable: see the module's text.
pub(crate) const ENV_DESTROY_SYNC: &str = "FSH_DESTROY_SYNC";
/// Environment variable: checked mode (see the module's text).
pub(crate) const ENV_CHECKED: &str = "SHMEMX_CHECK_COLLECTIVES";
/// Environment variable: the specification's debug mode, which turns checked mode on too.
pub(crate) const ENV_DEBUG: &str = "SHMEM_DEBUG";

/// Words of [`Agreed::encode`].
const WORDS: usize = 5;

static AGREED: OnceLock<Agreed> = OnceLock::new();

impl Agreed {
    /// The settings that `var` (an environment) gives.
    pub(crate) fn from(var: impl Fn(&str) -> Option<String>) -> Agreed {
        Agreed {
            trees_from: var(ENV_TREES_FROM).and_then(|v| v.trim().parse::<usize>().ok()).map(|v| v.max(2)),
            broadcast_ring: var(ENV_BROADCAST_RING).is_none_or(|v| v.trim() != "0"),
            alltoall_in_order: var(ENV_IN_ORDER).is_none_or(|v| v.trim() != "0"),
            destroy_sync: var(ENV_DESTROY_SYNC).is_some_and(|v| v.trim() == "1"),
            checked: [ENV_DEBUG, ENV_CHECKED]
                .iter()
                .any(|k| var(k).is_some_and(|v| !v.is_empty() && v != "0")),
        }
    }

    /// This process's own settings.
    pub(crate) fn from_env() -> Agreed {
        Agreed::from(|k| std::env::var(k).ok())
    }

    /// The settings as bytes, to publish.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let words: [u64; WORDS] = [
            self.trees_from.map_or(0, |v| v as u64),
            self.broadcast_ring as u64,
            self.alltoall_in_order as u64,
            self.destroy_sync as u64,
            self.checked as u64,
        ];
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The settings that [`Self::encode`] made (`None`: not such bytes).
    pub(crate) fn decode(bytes: &[u8]) -> Option<Agreed> {
        if bytes.len() != WORDS * 8 {
            return None;
        }
        let w = |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        let flag = |i: usize| match w(i) {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        };
        Some(Agreed {
            trees_from: (w(0) != 0).then(|| w(0) as usize),
            broadcast_ring: flag(1)?,
            alltoall_in_order: flag(2)?,
            destroy_sync: flag(3)?,
            checked: flag(4)?,
        })
    }
}

/// Makes `agreed` this process's settings for the job (at start-up, before any collective);
/// the first call wins.
pub(crate) fn agree(agreed: Agreed) {
    let _ = AGREED.set(agreed);
}

/// The job's settings: those agreed at start-up, or, before (and in unit tests), this
/// process's own.
pub(crate) fn agreed() -> &'static Agreed {
    AGREED.get_or_init(Agreed::from_env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_values() {
        let none = Agreed::from(|_| None);
        assert_eq!(
            none,
            Agreed {
                trees_from: None,
                broadcast_ring: true,
                alltoall_in_order: true,
                destroy_sync: false,
                checked: false
            }
        );
        let set = Agreed::from(|k| {
            Some(
                match k {
                    ENV_TREES_FROM => "1",
                    ENV_BROADCAST_RING | ENV_IN_ORDER => "0",
                    _ => "1",
                }
                .to_string(),
            )
        });
        assert_eq!(
            set,
            Agreed {
                trees_from: Some(2),
                broadcast_ring: false,
                alltoall_in_order: false,
                destroy_sync: true,
                checked: true
            }
        );
    }

    #[test]
    fn published_bytes_round_trip() {
        for a in [
            Agreed::from(|_| None),
            Agreed {
                trees_from: Some(7),
                broadcast_ring: false,
                alltoall_in_order: true,
                destroy_sync: true,
                checked: true,
            },
        ] {
            assert_eq!(Agreed::decode(&a.encode()), Some(a));
        }
        assert_eq!(Agreed::decode(&[0; 39]), None);
        assert_eq!(Agreed::decode(&[2; 40]), None);
    }
}
