//! Broadcasts of teams across hosts (see the parent module for the words and the staged
//! exchanges): small ones through the leaders' rings, medium ones as staged exchanges, large
//! ones straight into the leaders' destinations (over many hosts, down the leaders' trees).
#![allow(unsafe_code)]

use std::sync::atomic::Ordering;

use super::plan::{self, BroadcastForm, Shape, RING_ENTRY_BYTES};
use super::wide;
use super::*;
use crate::coll::Broadcast;

// The entries of the rings of small broadcasts (see [`broadcast_ring`]); what a PE knows of
// its team's rings is kept by the team (`team::across_hosts::BroadcastRing`).
use crate::runtime::FlagWord;
use crate::team::across_hosts::RING_ENTRIES;
/// A leader tells its parent in the latest broadcast's tree how far it read its network ring
/// after every this many small broadcasts, if it read any since it last did (see
/// [`broadcast_ring`]).
const RING_CREDIT_EVERY: u64 = RING_ENTRIES as u64 / 2;
// The rings' header, words of the staging area after `SHARED_STAGE_BYTES`, then the rings.
/// Staging-area word of the credit (`+ j`) of the leader `2^j` groups after this one (its
/// child in the rings' trees), raised by messages only: indexed by distance, so each word has
/// one writer whatever the root, and a leader needs one word per level of the tree, not per
/// host.
const RING_CREDIT_WORD: usize = SHARED_STAGE_BYTES / 8;
/// Credit words: trees of up to 2^40 hosts.
const RING_CREDIT_WORDS: usize = plan::RING_CREDIT_LEVELS;
/// Staging-area word of entry `e`'s flag (`+ e`) in a leader's network ring, raised by
/// messages only.
const RING_FLAG_WORD: usize = RING_CREDIT_WORD + RING_CREDIT_WORDS;
/// Staging-area word of entry `e`'s tag (`+ e`) in a PE's local ring: the epoch of the
/// broadcast whose bytes it holds; written by its PE only.
const RING_TAG_WORD: usize = RING_FLAG_WORD + RING_ENTRIES;
/// Staging-area word of the epoch of the latest small broadcast that this PE finished (it
/// reads no entry of it any more); written by its PE only.
const RING_DONE_WORD: usize = RING_TAG_WORD + RING_ENTRIES;
/// Offset in the staging area of the network ring's first entry (after a page of header).
const NET_RING: usize = SHARED_STAGE_BYTES + 4096;
/// Offset in the staging area of the local ring's first entry.
const LOCAL_RING: usize = NET_RING + RING_ENTRIES * RING_ENTRY_BYTES;
const _: () = assert!((RING_DONE_WORD + 1) * 8 <= NET_RING);
// The eager reductions' parts (`wide::reduce_eager`) lie after the ring's words, before its
// entries.
const _: () = assert!((RING_DONE_WORD + 1) * 8 <= plan::EAGER_PARTIALS_AT);
const _: () = assert!(
    plan::EAGER_PARTIALS_AT + plan::EAGER_PARTIAL_CHILDREN as usize * plan::EAGER_PARTIAL_BYTES <= NET_RING
);
const _: () = assert!(LOCAL_RING + RING_ENTRIES * RING_ENTRY_BYTES <= crate::job::STAGE_BYTES);
/// Broadcast: on the root's host the root is the hub, and its host's leader sends. Every other
/// host's leader says that it entered (its destination is free); the sending leader puts the
/// root's source into each entered leader's destination and raises its flag there; the members
/// of that host copy from their leader's destination once the flag is up.
pub(in crate::coll) fn broadcast(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    args: Broadcast,
) -> Result<()> {
    let Broadcast { dest, src, nbytes, root, update_root } = args;
    check_own(rt, routine, dest, nbytes)?;
    check_own(rt, routine, src, nbytes)?;
    if nbytes == 0 {
        team.sync_unchecked(rt);
        return Ok(());
    }
    let wide = match plan::broadcast(&Shape::of(groups), nbytes, ring_enabled()) {
        BroadcastForm::Ring => return broadcast_ring(rt, team, groups, routine, args),
        BroadcastForm::Staged => return broadcast_staged(rt, team, groups, routine, args),
        BroadcastForm::Tree => true,
        BroadcastForm::Counted => false,
    };
    let op = Op::new(rt, team, groups, routine);
    let root_group = groups.group_of(root);
    let entered = op.flag_value(0);
    // The root's leader sends into each other leader's destination once it said "entered"
    // (over many hosts, into its children's in a tree, and they pass it on).
    let send = |from: usize| -> Result<()> {
        if wide {
            return wide::broadcast_send(&op, root_group, dest, from, nbytes);
        }
        for g in groups.others() {
            op.wait_flag(g, entered);
            op.send_counted(op.leader_of(g), dest, from, nbytes)?;
        }
        Ok(())
    };
    if groups.mine() != root_group {
        let leader = op.my_leader();
        if op.is_leader() {
            if wide {
                wide::broadcast_receive(&op, root_group, dest, nbytes)?;
            } else {
                let base = op.counted_base();
                rt.fence();
                op.signal(op.leader_of(root_group), entered);
                op.wait_counted(base, counted_messages(nbytes));
            }
            op.release();
            op.wait_done();
        } else {
            op.wait_release(leader);
            let from = at(rt, routine, dest, nbytes, leader)?;
            // SAFETY: the leader's destination holds the data (released) and stays
            // unchanged until we are done; ours is written by us alone.
            unsafe { copy(dest, from, nbytes) };
            op.done(leader);
        }
        return Ok(());
    }
    let root_pe = op.pe(root);
    if team.my_index == root {
        if update_root {
            // SAFETY: the caller's checked buffers (equal, or not overlapping).
            unsafe { copy(dest, src, nbytes) };
        }
        op.release();
        if op.is_leader() {
            send(src)?;
        }
        op.wait_done();
    } else {
        op.wait_release(root_pe);
        let from = at(rt, routine, src, nbytes, root_pe)?;
        if op.is_leader() {
            send(from)?;
        }
        // SAFETY: the root released its source, which stays unchanged until we are done.
        unsafe { copy(dest, from, nbytes) };
        op.done(root_pe);
    }
    Ok(())
}

/// Whether small broadcasts take the rings (`FSH_HIER_BROADCAST_RING=0`: the staged exchanges
/// instead, for measuring one against the other; one of the job's agreed settings,
/// `crate::settings`).
fn ring_enabled() -> bool {
    crate::settings::agreed().broadcast_ring
}

/// Small broadcast ([`RING_ENTRY_BYTES`] at most), eager: nobody waits for anybody who does
/// not hold the data yet, so back-to-back broadcasts pipeline as MPI's do. Each PE has a
/// *local ring* of [`RING_ENTRIES`] entries in its staging area, each entry tagged with the
/// epoch of the broadcast it holds; each leader also a *network ring*, each entry with a flag.
/// The root copies its source into its local ring entry and tags it, sends it in one flagged
/// message into that entry of the network ring of each of its children's leaders (the hosts
/// form a binomial tree rooted at the root's), and returns. A leader of another host waits
/// for the entry's flag, copies the bytes into its destination, sends them on to its own
/// children, copies them into its local ring entry and tags it; every other member copies
/// from the local ring of its host's source (the root on the root's host, else its leader)
/// once tagged. Each PE then marks the broadcast done ([`RING_DONE_WORD`]).
///
/// Reuse: a PE writes its local entry only once every other member of its host is done with
/// the broadcast that used the entry before (every member counts the small broadcasts alike
/// and records each entry's epochs, `team::across_hosts::BroadcastRing`). A parent writes a child host's
/// network entry only once that host's leader said it read the entry's previous bytes: each
/// leader that read its network ring since it last did tells its parent in the current
/// broadcast's tree so (its credit word there raised to the current epoch) after every
/// [`RING_CREDIT_EVERY`]-th small broadcast, and the parent reads these credits in its own
/// leader's staging area. While the root stays, the parent is the next writer; a writer
/// that waits in vain for a credit (the root changed) reads the child's done word over the
/// network instead. Between two hosts with one root that is 1 + 1 / `RING_CREDIT_EVERY`
/// messages per broadcast.
fn broadcast_ring(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    args: Broadcast,
) -> Result<()> {
    let Broadcast { dest, src, nbytes, root, update_root } = args;
    let op = Op::new(rt, team, groups, routine);
    let ring = team.broadcast_ring(groups.len());
    let b = ring.taken.fetch_add(1, Ordering::Relaxed);
    let e = (b % RING_ENTRIES as u64) as usize;
    let previous = ring.epochs[e].swap(op.epoch, Ordering::Relaxed);
    let root_group = groups.group_of(root);
    let mine = groups.mine();
    let me = team.my_index;
    let slot = team.slot;
    let word = |pe: usize, i: usize| rt.stage_word(pe, slot, i);
    let wait_word = |pe: usize, i: usize, value: u64| {
        let w = word(pe, i);
        rt.wait_until(pe, || w.load(Ordering::Acquire) >= value);
    };
    // Our local entry: every other member of our host is done with its previous use.
    let write_local = |from: usize| {
        for &m in groups.members(mine) {
            if m != me {
                wait_word(op.pe(m), RING_DONE_WORD, previous);
            }
        }
        let entry = rt.stage_addr(slot) + LOCAL_RING + e * RING_ENTRY_BYTES;
        // SAFETY: our own local entry, read by nobody any more (above); `from` is readable
        // for `nbytes` (the caller's source, or our destination written just now).
        unsafe { copy(entry, from, nbytes) };
        word(rt.my_pe, RING_TAG_WORD + e).store(op.epoch, Ordering::Release);
        rt.notify(rt.my_pe);
    };
    let landed = op.flag_value(0);
    // The hosts' leaders form a binomial tree rooted at the root's host (numbered from it):
    // this host sends to its children, each of which received the bytes before it sends them
    // on. The root so sends ceil(log2 L) messages instead of L - 1, and the others share the
    // sends; with 2 or 3 hosts every other host is a child of the root's.
    let l = groups.len();
    let children = |g: usize| {
        let r = (g + l - root_group) % l;
        (0..usize::BITS)
            .map(|k| 1usize << k)
            .skip_while(move |&d| d <= r)
            .take_while(move |&d| r + d < l)
            .map(move |d| (r + d + root_group) % l)
    };
    // Each child host's network entry once its leader read what the entry held before (its
    // credit, sent to its parent for the latest root, so to us while the root stays; else we
    // read how far it got), then the bytes at `from` into it.
    let send_on = |from: usize| {
        let my_leader = op.my_leader();
        for g in children(mine) {
            let was = ring.written[e * l + g].load(Ordering::Relaxed);
            if was == 0 {
                continue;
            }
            let distance = (g + l - mine) % l;
            let credit = word(my_leader, RING_CREDIT_WORD + distance.trailing_zeros() as usize);
            let child = op.leader_of(g);
            let mut looks = 0u32;
            rt.wait_until(my_leader, || {
                if credit.load(Ordering::Acquire) >= was << CHUNK_BITS {
                    return true;
                }
                // No credit after a while: the child may send it to another parent (the root
                // changed); read its progress (a network round trip) now and then.
                looks += 1;
                looks % 64 == 32 && rt.read_stage_word_of(routine, child, slot, RING_DONE_WORD) >= was
            });
        }
        // SAFETY: the caller's checked source, or our destination written just now.
        let bytes = unsafe { std::slice::from_raw_parts(from as *const u8, nbytes) };
        for g in children(mine) {
            rt.put_stage_flagged(
                routine,
                op.leader_of(g),
                slot,
                NET_RING + e * RING_ENTRY_BYTES,
                bytes,
                FlagWord::Stage(RING_FLAG_WORD + e),
                landed,
            );
        }
    };
    if me == root {
        if update_root {
            // SAFETY: the caller's checked buffers (equal, or not overlapping).
            unsafe { copy(dest, src, nbytes) };
        }
        if groups.members(mine).len() > 1 {
            write_local(src);
        }
        send_on(src);
    } else if mine != root_group && op.is_leader() {
        // Raised only by our parent, a leader of another host, by the network.
        let flag = word(rt.my_pe, RING_FLAG_WORD + e);
        rt.wait_until_remote(|| flag.load(Ordering::Acquire) >= landed);
        // SAFETY: the entry holds this broadcast's bytes (its flag is up) and is not written
        // again before our credit says we read it; our destination is ours.
        unsafe { copy(dest, rt.stage_addr(slot) + NET_RING + e * RING_ENTRY_BYTES, nbytes) };
        ring.unreported.store(true, Ordering::Relaxed);
        send_on(dest);
        if groups.members(mine).len() > 1 {
            write_local(dest);
        }
    } else {
        let source = if mine == root_group { op.pe(root) } else { op.my_leader() };
        wait_word(source, RING_TAG_WORD + e, op.epoch);
        let entry = rt.ctrl.stage(source, slot) + LOCAL_RING + e * RING_ENTRY_BYTES;
        // SAFETY: the source's local entry holds this broadcast's bytes (tagged) and is not
        // written again before we are done with it (below); our destination is ours.
        unsafe { copy(dest, entry, nbytes) };
    }
    for g in (0..groups.len()).filter(|&g| g != root_group) {
        ring.written[e * groups.len() + g].store(op.epoch, Ordering::Relaxed);
    }
    word(rt.my_pe, RING_DONE_WORD).store(op.epoch, Ordering::Release);
    rt.notify(rt.my_pe);
    // To our parent in this broadcast's tree: the next writer of our entries while the root
    // stays (a new root's writer reads how far we got instead). A leader of the root's host
    // has no parent this time and keeps its credit for later.
    let r = (mine + l - root_group) % l;
    if op.is_leader()
        && r != 0
        && b % RING_CREDIT_EVERY == RING_CREDIT_EVERY - 1
        && ring.unreported.swap(false, Ordering::Relaxed)
    {
        let parent = (r - (1 << r.ilog2()) + root_group) % l;
        rt.put_stage_flagged(
            routine,
            op.leader_of(parent),
            slot,
            NET_RING,
            &[],
            FlagWord::Stage(RING_CREDIT_WORD + r.ilog2() as usize),
            landed,
        );
    }
    Ok(())
}

/// Broadcast through the staging areas ([`STAGED_BROADCAST_MAX`]), in chunks of half an area,
/// each chunk a staged exchange: the root's leader puts chunk c of the root's source into the
/// other leaders' staging areas without waiting for them to enter this chunk (they said so
/// for the previous staged exchange: the credit), so that back-to-back broadcasts cost one
/// network step each rather than a round trip, and chunks pipeline. Every member first
/// arrives at its leader; every leader that is not the root's says "entered" to every other
/// leader for each chunk once its host has (the credit of the next staged exchange, whoever
/// sends in it), waits for the chunk, and copies it into its destination; at the end it
/// copies the whole into its members' destinations and releases them. On the root's host the
/// leader sends from the root's source and copies it into its members' destinations. Every
/// member arrives at its leader and waits for its release, nothing else.
fn broadcast_staged(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    args: Broadcast,
) -> Result<()> {
    let Broadcast { dest, src, nbytes, root, update_root } = args;
    let op = Op::new(rt, team, groups, routine);
    let chunks = nbytes.div_ceil(STAGE_HALF) as u64;
    // Chunk c: the other leaders' "entered" is flag value 2c, the root's leader's data 2c + 1.
    let entered = |c: u64| op.flag_value(2 * c);
    let landed = |c: u64| op.flag_value(2 * c + 1);
    let (first, credit) = team.take_staged_exchanges(chunks, entered(chunks - 1));
    // Exchange `first + c`: its half of the staging area, its credit, its bytes.
    let half = |c: u64| ((first + c) & 1) as usize * STAGE_HALF;
    let credit_of = |c: u64| if c == 0 { credit } else { entered(c - 1) };
    let part = |c: u64| {
        let lo = c as usize * STAGE_HALF;
        (lo, STAGE_HALF.min(nbytes - lo))
    };
    let stage = rt.stage_addr(team.slot);
    let root_group = groups.group_of(root);
    let me = team.my_index;
    let leader = op.my_leader();
    if me == root && update_root {
        // SAFETY: the caller's checked buffers (equal, or not overlapping).
        unsafe { copy(dest, src, nbytes) };
    }
    if !op.is_leader() {
        // Every member waits for its own leader's release: a member that went on at another
        // PE's word could arrive for the next operation before a slower one arrived for this
        // one, and the tagged arrival count would lose one of them.
        op.arrive(leader);
        op.wait_release(leader);
        return Ok(());
    }
    op.wait_arrivals(op.local_others());
    if groups.mine() != root_group {
        for c in 0..chunks {
            op.wait_credit(first + c, credit_of(c));
            for g in groups.others() {
                op.send_staged(op.leader_of(g), first + c, half(c), &[], entered(c));
            }
            op.wait_msg_flag(root_group, first + c, landed(c));
            let (lo, len) = part(c);
            // SAFETY: chunk c landed in our staging area (the root group's flag is up) and
            // stays until a later exchange; our destination is ours.
            unsafe { copy(dest + lo, stage + half(c), len) };
        }
        op.push_to_members(true, dest, nbytes)?;
        op.release();
        return Ok(());
    }
    // The root's host: its leader sends from the root's source (the root arrived: its source
    // is ready and unchanged until our release), then copies it into the destinations of the
    // host's members (but the root's own unless `update_root`).
    let from = if me == root { src } else { at(rt, routine, src, nbytes, op.pe(root))? };
    for c in 0..chunks {
        op.wait_credit(first + c, credit_of(c));
        let (lo, len) = part(c);
        // SAFETY: the root's source: unchanged until we are done (above).
        let bytes = unsafe { std::slice::from_raw_parts((from + lo) as *const u8, len) };
        for g in groups.others() {
            op.send_staged(op.leader_of(g), first + c, half(c), bytes, landed(c));
        }
    }
    if me != root {
        // SAFETY: our own destination; the root's source as above.
        unsafe { copy(dest, from, nbytes) };
    }
    for &m in groups.members(groups.mine()) {
        if m != me && (m != root || update_root) {
            let to = at(rt, routine, dest, nbytes, op.pe(m))?;
            // SAFETY: member m arrived (its destination is free and written by us alone
            // until our release); the root's source as above.
            unsafe { copy(to, from, nbytes) };
        }
    }
    op.release();
    Ok(())
}
