//! A team's description in its slot words (`slot_layout::W_DESC`): how it was made and its
//! members in world terms, written by each member into its own slot when the team is made
//! ([`describe_team`]), read by the hang reports (`activity`) to name the team and list who has
//! not arrived. Here, with the creation that writes it (issue 30: it lived in `activity`,
//! which team creation thus called).

use std::sync::atomic::Ordering;

use crate::job::slot_layout::{DESC_WORDS, W_DESC};
use crate::runtime::Runtime;
use crate::team::pe_set::PeSet;

const DESC_TAG: u64 = 0x4445_5343 << 16; // "DESC"

/// How a team was made (for reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Made {
    SplitStrided { parent: usize, start: i64, stride: i64, size: i64 },
    Split2dRow { parent: usize, xrange: i64 },
    Split2dColumn { parent: usize, xrange: i64 },
    SplitColor { parent: usize, color: i64 },
    Init { npes: i64 },
}

impl Made {
    fn words(self) -> (u64, [i64; 4]) {
        match self {
            Made::SplitStrided { parent, start, stride, size } => (1, [parent as i64, start, stride, size]),
            Made::Split2dRow { parent, xrange } => (2, [parent as i64, xrange, 0, 0]),
            Made::Split2dColumn { parent, xrange } => (3, [parent as i64, xrange, 0, 0]),
            Made::SplitColor { parent, color } => (4, [parent as i64, color, 0, 0]),
            Made::Init { npes } => (5, [-1, npes, 0, 0]),
        }
    }

    fn from_words(kind: u64, w: [i64; 4]) -> Option<Self> {
        let parent = w[0] as usize;
        Some(match kind {
            1 => Made::SplitStrided { parent, start: w[1], stride: w[2], size: w[3] },
            2 => Made::Split2dRow { parent, xrange: w[1] },
            3 => Made::Split2dColumn { parent, xrange: w[1] },
            4 => Made::SplitColor { parent, color: w[1] },
            5 => Made::Init { npes: w[1] },
            _ => return None,
        })
    }
}

/// Writes the description of the team on `slot` (made as `made`, members `pes`) into this
/// PE's slot words.
pub(crate) fn describe_team(rt: &Runtime, slot: usize, made: Made, pes: &PeSet) {
    let words = &rt.ctrl.slot(rt.my_pe, slot)[W_DESC..W_DESC + DESC_WORDS];
    let (kind, args) = made.words();
    for (w, a) in words[1..5].iter().zip(args) {
        w.store(a as u64, Ordering::Relaxed);
    }
    // Members in world terms when strided (oshrun lists who has not arrived from these).
    let (start, stride, size) = match pes {
        PeSet::Strided { start, stride, size } => (*start as i64, *stride, *size as u64),
        PeSet::List { members, .. } => (-1, 0, members.len() as u64),
    };
    words[5].store(start as u64, Ordering::Relaxed);
    words[6].store(stride as u64, Ordering::Relaxed);
    words[7].store(size, Ordering::Relaxed);
    words[0].store(DESC_TAG | kind, Ordering::Release);
}

/// A team's members in world terms: (start, stride, size).
type WorldStrided = (i64, i64, usize);
/// A team's description: how it was made, and its members in world terms when strided.
pub(crate) type Desc = (Made, Option<WorldStrided>);

/// A description from its words (read in place, or brought from another host).
pub(crate) fn desc_of_words(w: &[u64; DESC_WORDS]) -> Option<Desc> {
    if w[0] & !0xffff != DESC_TAG {
        return None;
    }
    let i = |k: usize| w[k] as i64;
    let made = Made::from_words(w[0] & 0xffff, [i(1), i(2), i(3), i(4)])?;
    let (start, stride, size) = (i(5), i(6), w[7] as usize);
    Some((made, (start >= 0).then_some((start, stride, size))))
}
