//! `shmem_team_destroy`.

use fcore::team::TeamHandle;

use super::contexts::destroy_contexts;
use super::{handle, CTeam};
use crate::rt;

/// `shmem_team_destroy`. INVALID is a no-op. A predefined team (or a handle that is not a team
/// of this PE) is refused: a message on stderr, nothing destroyed, and the program carries on
/// (the routine returns void). Destroys the team's shareable contexts first.
#[no_mangle]
pub extern "C" fn shmem_team_destroy(team: CTeam) {
    const R: &str = "shmem_team_destroy";
    let rt = rt(R);
    let h = handle(team);
    if h == TeamHandle::INVALID {
        return;
    }
    if rt.teams().get(h).is_some() && !h.is_predefined() {
        destroy_contexts(rt, h);
    }
    if let Err(e) = fcore::team::destroy(rt, h, R) {
        let what = match h.is_predefined() {
            true => "a predefined team cannot be destroyed",
            false => "not a team of this PE (destroyed already?)",
        };
        rt.report(format_args!("{R}: {what}; nothing was destroyed ({e})"));
    }
}

pshmem!(shmem_team_destroy);
