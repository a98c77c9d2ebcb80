//! Collectives through the safe Rust API on real PEs, compared with a serial model: every
//! collective over the world, the even PEs, the reversed world, 2D rows and columns and an
//! arbitrary-order team (team_init), for i8, i32, i64, f32, f64 and Complex<f64>, at 0, 1, 7
//! elements and 4 KiB, and 1 MiB on every team (moves in i32; reductions in i8, i32, i64, f32, f64, Complex<f64>); collectives on
//! disjoint teams from two threads at once.

mod common;

use std::fmt::Debug;

use ferroshmem::coll::{And, Complex, Max, Min, Or, Prod, ReduceOp, Sum, Xor};
use ferroshmem::{Shmem, SymSlice, Symmetric, Team, TeamConfig};

const PE_COUNTS: &[usize] = &[1, 2, 3, 5, 8, 12];

fn spmd(name: &str, npes: &[usize], body: fn(&Shmem)) {
    common::spmd(name, npes, &[], body)
}

const DEFAULT: TeamConfig = TeamConfig { num_contexts: 0 };

/// Test values: small integers, so that sums and products are exact in every type.
trait Val: Symmetric + PartialEq + Debug {
    fn val(w: usize, k: usize) -> Self;
    /// -1 or 1 (products).
    fn sign(w: usize, k: usize) -> Self;
}
macro_rules! val_num {
    ($($t:ty),*) => {$(
        impl Val for $t {
            fn val(w: usize, k: usize) -> Self { ((w * 131 + k * 7 + 3) % 97) as $t }
            fn sign(w: usize, k: usize) -> Self { if (w + k) % 3 == 0 { 0 as $t - 1 as $t } else { 1 as $t } }
        }
    )*};
}
val_num!(i8, i32, i64, f32, f64);
impl Val for Complex<f64> {
    fn val(w: usize, k: usize) -> Self {
        Complex { re: f64::val(w, k), im: f64::val(w + 1, k) }
    }
    fn sign(w: usize, k: usize) -> Self {
        match (w + k) % 4 {
            0 => Complex { re: 0.0, im: 1.0 },
            1 => Complex { re: -1.0, im: 0.0 },
            _ => Complex { re: 1.0, im: 0.0 },
        }
    }
}

fn set<T: Val>(s: &SymSlice<T>, n: usize, f: impl Fn(usize) -> T) {
    for k in 0..n {
        s.write(k, f(k)).unwrap();
    }
}

struct Ctx<'a> {
    team: &'a Team<'a>,
    name: &'a str,
    me: usize,
}

impl Ctx<'_> {
    fn w(&self, i: usize) -> usize {
        self.team.world_pe(i).unwrap()
    }
}

fn moves<T: Val>(c: &Ctx, src: &mut SymSlice<T>, dst: &mut SymSlice<T>, n: usize) {
    let (t, s, r) = (c.team, c.team.n_pes(), c.team.my_pe());
    let what = |op: &str| format!("{} {} {op} n={n}", std::any::type_name::<T>(), c.name);
    for root in 0..s.min(3) {
        set(src, n, |k| T::val(c.me, k));
        set(dst, n, |_| T::val(999, 0));
        t.broadcast(dst, src, n, root).unwrap();
        for k in 0..n {
            assert_eq!(dst.read(k).unwrap(), T::val(c.w(root), k), "{} root {root} k {k}", what("broadcast"));
        }
    }
    set(src, n, |k| T::val(c.me, k));
    t.fcollect(dst, src, n).unwrap();
    for j in 0..s {
        for k in 0..n {
            assert_eq!(dst.read(j * n + k).unwrap(), T::val(c.w(j), k), "{} j {j} k {k}", what("fcollect"));
        }
    }
    let len = |j: usize| n.saturating_sub(j % 2);
    let total = t.collect(dst, src, len(r)).unwrap();
    assert_eq!(total, (0..s).map(len).sum::<usize>(), "{}", what("collect total"));
    let mut off = 0;
    for j in 0..s {
        for k in 0..len(j) {
            assert_eq!(dst.read(off + k).unwrap(), T::val(c.w(j), k), "{} j {j} k {k}", what("collect"));
        }
        off += len(j);
    }
    set(src, s * n, |k| T::val(c.me * 16 + k / n.max(1), k % n.max(1)));
    t.alltoall(dst, src, n).unwrap();
    for i in 0..s {
        for k in 0..n {
            assert_eq!(
                dst.read(i * n + k).unwrap(),
                T::val(c.w(i) * 16 + r, k),
                "{} i {i} k {k}",
                what("alltoall")
            );
        }
    }
    if n * std::mem::size_of::<T>() <= 4096 {
        set(src, s * n * 3, |k| T::val(c.me + 50, k));
        t.alltoalls(dst, src, 2, 3, n).unwrap();
        for i in 0..s {
            for k in 0..n {
                let want = T::val(c.w(i) + 50, (r * n + k) * 3);
                assert_eq!(dst.read((i * n + k) * 2).unwrap(), want, "{} i {i} k {k}", what("alltoalls"));
            }
        }
    }
}

fn reduce<T: Val, O: ReduceOp<T>>(
    c: &Ctx,
    op: O,
    src: &mut SymSlice<T>,
    dst: &mut SymSlice<T>,
    n: usize,
    f: fn(usize, usize) -> T,
) {
    set(src, n, |k| f(c.me, k));
    c.team.reduce(op, dst, src, n).unwrap();
    for k in 0..n {
        let want = (1..c.team.n_pes()).fold(f(c.w(0), k), |acc, j| O::apply(acc, f(c.w(j), k)));
        assert_eq!(
            dst.read(k).unwrap(),
            want,
            "{} {} {} n={n} k={k}",
            std::any::type_name::<T>(),
            c.name,
            O::NAME
        );
    }
    // In place gives the same.
    c.team.reduce_in_place(op, src, n).unwrap();
    for k in 0..n {
        assert_eq!(src.read(k).unwrap(), dst.read(k).unwrap(), "{} in place k={k}", c.name);
    }
}

fn arith<T: Val>(c: &Ctx, src: &mut SymSlice<T>, dst: &mut SymSlice<T>, n: usize)
where
    Sum: ReduceOp<T>,
    Prod: ReduceOp<T>,
    Max: ReduceOp<T>,
    Min: ReduceOp<T>,
{
    moves(c, src, dst, n);
    reduce(c, Sum, src, dst, n, T::val);
    reduce(c, Prod, src, dst, n, T::sign);
    reduce(c, Max, src, dst, n, T::val);
    reduce(c, Min, src, dst, n, T::val);
}

fn bitwise<T: Val>(c: &Ctx, src: &mut SymSlice<T>, dst: &mut SymSlice<T>, n: usize)
where
    And: ReduceOp<T>,
    Or: ReduceOp<T>,
    Xor: ReduceOp<T>,
{
    reduce(c, And, src, dst, n, T::val);
    reduce(c, Or, src, dst, n, T::val);
    reduce(c, Xor, src, dst, n, T::val);
}

/// Every collective and type on one team at element counts derived from `bytes`.
fn all_on(s: &Shmem, team: &Team, name: &str, bytes: &[usize], bufs: &mut Bufs) {
    let c = Ctx { team, name, me: s.my_pe() };
    for &b in bytes {
        let n = |size: usize| if b < 8 { b } else { b / size };
        arith(&c, &mut bufs.i8s.0, &mut bufs.i8s.1, n(1));
        bitwise(&c, &mut bufs.i8s.0, &mut bufs.i8s.1, n(1));
        arith(&c, &mut bufs.i32s.0, &mut bufs.i32s.1, n(4));
        bitwise(&c, &mut bufs.i32s.0, &mut bufs.i32s.1, n(4));
        arith(&c, &mut bufs.i64s.0, &mut bufs.i64s.1, n(8));
        bitwise(&c, &mut bufs.i64s.0, &mut bufs.i64s.1, n(8));
        arith(&c, &mut bufs.f32s.0, &mut bufs.f32s.1, n(4));
        arith(&c, &mut bufs.f64s.0, &mut bufs.f64s.1, n(8));
        let (cs, cd) = (&mut bufs.c64s.0, &mut bufs.c64s.1);
        moves(&c, cs, cd, n(16));
        reduce(&c, Sum, cs, cd, n(16), Complex::<f64>::val);
        reduce(&c, Prod, cs, cd, n(16), Complex::<f64>::sign);
    }
}

struct Bufs<'s> {
    i8s: (SymSlice<'s, i8>, SymSlice<'s, i8>),
    i32s: (SymSlice<'s, i32>, SymSlice<'s, i32>),
    i64s: (SymSlice<'s, i64>, SymSlice<'s, i64>),
    f32s: (SymSlice<'s, f32>, SymSlice<'s, f32>),
    f64s: (SymSlice<'s, f64>, SymSlice<'s, f64>),
    c64s: (SymSlice<'s, Complex<f64>>, SymSlice<'s, Complex<f64>>),
}

impl<'s> Bufs<'s> {
    /// Room for `bytes` per block, times 3 (alltoalls strides) and the PE count.
    fn new(s: &'s Shmem, bytes: usize) -> Bufs<'s> {
        let len = |size: usize| s.n_pes() * 3 * bytes.div_ceil(size).max(8);
        let pair = |size| (len(size), len(size));
        let (a, b) = pair(1);
        let i8s = (s.alloc(a).unwrap(), s.alloc(b).unwrap());
        let (a, b) = pair(4);
        let i32s = (s.alloc(a).unwrap(), s.alloc(b).unwrap());
        let (a, b) = pair(8);
        let i64s = (s.alloc(a).unwrap(), s.alloc(b).unwrap());
        let (a, b) = pair(4);
        let f32s = (s.alloc(a).unwrap(), s.alloc(b).unwrap());
        let (a, b) = pair(8);
        let f64s = (s.alloc(a).unwrap(), s.alloc(b).unwrap());
        let (a, b) = pair(16);
        let c64s = (s.alloc(a).unwrap(), s.alloc(b).unwrap());
        Bufs { i8s, i32s, i64s, f32s, f64s, c64s }
    }
}

/// The arbitrary-order team: member index (7 me + 3) mod n, id drawn by PE 0.
fn arbitrary(s: &Shmem) -> Team<'_> {
    let n = s.n_pes();
    let id: SymSlice<u64> = s.alloc(1).unwrap();
    if s.my_pe() == 0 {
        let v = s.team_uniqueid().unwrap();
        for pe in 0..n {
            id.p(pe, 0, v).unwrap();
        }
    }
    s.barrier_all();
    let t = s.team_init(id.read(0).unwrap(), n, (7 * s.my_pe() + 3) % n, DEFAULT).unwrap();
    assert_eq!(t.my_pe(), (7 * s.my_pe() + 3) % n);
    t
}

const SMALL: &[usize] = &[0, 1, 7, 4096];

#[test]
fn every_collective_on_world_evens_reversed() {
    spmd("every_collective_on_world_evens_reversed", PE_COUNTS, |s| {
        let n = s.n_pes();
        let mut bufs = Bufs::new(s, 4096);
        let world = s.team_world();
        all_on(s, &world, "world", SMALL, &mut bufs);
        let evens = world.split_strided(0, 2, n.div_ceil(2) as i64, DEFAULT).unwrap();
        if let Some(t) = &evens {
            all_on(s, t, "evens", SMALL, &mut bufs);
        }
        let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
        all_on(s, &rev, "reversed", SMALL, &mut bufs);
        s.barrier_all();
    });
}

#[test]
fn every_collective_on_2d_and_arbitrary_teams() {
    spmd("every_collective_on_2d_and_arbitrary_teams", PE_COUNTS, |s| {
        let mut bufs = Bufs::new(s, 4096);
        let world = s.team_world();
        let xr = if s.n_pes() >= 6 { 3 } else { 2 };
        let (row, col) = world.split_2d(xr, DEFAULT, DEFAULT).unwrap();
        all_on(s, &row, "row", SMALL, &mut bufs);
        all_on(s, &col, "column", SMALL, &mut bufs);
        let arb = arbitrary(s);
        all_on(s, &arb, "arbitrary", SMALL, &mut bufs);
        s.barrier_all();
    });
}

/// 1 MiB per PE (alltoall: per destination) through every collective on every kind of team:
/// world, evens, reversed, 2D rows and columns, arbitrary order.
#[test]
fn one_mebibyte_on_every_team() {
    spmd("one_mebibyte_on_every_team", PE_COUNTS, |s| {
        let n = s.n_pes();
        let world = s.team_world();
        let evens = world.split_strided(0, 2, n.div_ceil(2) as i64, DEFAULT).unwrap();
        let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
        let (row, col) = world.split_2d(if n >= 6 { 3 } else { 2 }, DEFAULT, DEFAULT).unwrap();
        let arb = arbitrary(s);
        let len = n << 20;
        let (mut a, mut b): (SymSlice<i32>, SymSlice<i32>) =
            (s.alloc(len / 4).unwrap(), s.alloc(len / 4).unwrap());
        let (mut x, mut y): (SymSlice<f64>, SymSlice<f64>) =
            (s.alloc(len / 8).unwrap(), s.alloc(len / 8).unwrap());
        let (mut p, mut q): (SymSlice<i8>, SymSlice<i8>) =
            (s.alloc(1 << 20).unwrap(), s.alloc(1 << 20).unwrap());
        let (mut f, mut g): (SymSlice<f32>, SymSlice<f32>) =
            (s.alloc(1 << 18).unwrap(), s.alloc(1 << 18).unwrap());
        let (mut l, mut m): (SymSlice<i64>, SymSlice<i64>) =
            (s.alloc(1 << 17).unwrap(), s.alloc(1 << 17).unwrap());
        let (mut z, mut w): (SymSlice<Complex<f64>>, SymSlice<Complex<f64>>) =
            (s.alloc(1 << 16).unwrap(), s.alloc(1 << 16).unwrap());
        let mut teams =
            vec![(&world, "world"), (&rev, "reversed"), (&row, "row"), (&col, "column"), (&arb, "arbitrary")];
        if let Some(t) = &evens {
            teams.push((t, "evens"));
        }
        for (team, name) in teams {
            let c = Ctx { team, name, me: s.my_pe() };
            moves(&c, &mut a, &mut b, (1 << 20) / 4);
            reduce(&c, Sum, &mut a, &mut b, (1 << 20) / 4, i32::val);
            reduce(&c, Max, &mut x, &mut y, (1 << 20) / 8, f64::val);
            reduce(&c, Sum, &mut x, &mut y, (1 << 20) / 8, f64::val);
            reduce(&c, Xor, &mut p, &mut q, 1 << 20, i8::val);
            reduce(&c, Sum, &mut f, &mut g, 1 << 18, f32::val);
            reduce(&c, Or, &mut l, &mut m, 1 << 17, i64::val);
            reduce(&c, Prod, &mut z, &mut w, 1 << 16, Complex::<f64>::sign);
        }
        s.barrier_all();
    });
}

#[test]
fn concurrent_collectives_on_rows_and_columns_from_two_threads() {
    spmd("concurrent_collectives_on_rows_and_columns_from_two_threads", &[4, 6], |s| {
        let world = s.team_world();
        let (row, col) = world.split_2d(2, DEFAULT, DEFAULT).unwrap();
        let me = s.my_pe();
        let mut bufs = [
            (s.alloc::<i64>(64).unwrap(), s.alloc::<i64>(64).unwrap()),
            (s.alloc(64).unwrap(), s.alloc(64).unwrap()),
        ];
        std::thread::scope(|sc| {
            // Each team moves into its thread (a Team is Send, not Sync).
            for (team, (src, dst)) in [row, col].into_iter().zip(&mut bufs) {
                sc.spawn(move || {
                    for round in 0..200usize {
                        src.write(0, (me + round) as i64).unwrap();
                        team.reduce(Sum, dst, src, 1).unwrap();
                        let want: i64 =
                            (0..team.n_pes()).map(|i| (team.world_pe(i).unwrap() + round) as i64).sum();
                        assert_eq!(dst.read(0).unwrap(), want);
                    }
                });
            }
        });
        s.barrier_all();
    });
}

/// Small (eager) and medium (staged) collectives back to back with values that change every
/// round: a PE that ran ahead must never overwrite data a slower PE still reads.
#[test]
fn eager_collectives_back_to_back() {
    spmd("eager_collectives_back_to_back", &[2, 3, 8], |s| {
        let (me, n) = (s.my_pe() as i64, s.n_pes());
        let world = s.team_world();
        let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
        let (mut src, mut dst): (SymSlice<i64>, SymSlice<i64>) =
            (s.alloc((40 * n).max(12_000)).unwrap(), s.alloc((40 * n).max(12_000)).unwrap());
        // A stream of broadcasts from one root, nothing else between: the root runs ahead of
        // the others through the scratch ring, and must never overwrite an unread entry.
        // 24, 100 and 600 elements take the staged ring when PEs outnumber cores, with entries
        // of different sizes one after the other. Across hosts 5 000 and 12 000 elements
        // (40 and 96 KB) go through the staging areas in 2 and 3 pipelined chunks.
        for len in [1usize, 3, 8, 24, 100, 600, 24, 5_000, 12_000, 8] {
            for round in 0..if len > 1000 { 60 } else { 300i64 } {
                if me == 0 {
                    for k in 0..len {
                        src.write(k, round * 10 + k as i64).unwrap();
                    }
                }
                world.broadcast(&mut dst, &mut src, len, 0).unwrap();
                for k in 0..len {
                    assert_eq!(dst.read(k).unwrap(), round * 10 + k as i64, "stream len {len} round {round}");
                }
            }
        }
        for round in 0..400i64 {
            let team = if round % 5 == 4 { &rev } else { &world };
            let root = round as usize % n;
            src.write(0, me * 1000 + round).unwrap();
            src.write(1, -me - round).unwrap();
            team.broadcast(&mut dst, &mut src, 2, root).unwrap();
            let wr = team.world_pe(root).unwrap() as i64;
            assert_eq!(
                (dst.read(0).unwrap(), dst.read(1).unwrap()),
                (wr * 1000 + round, -wr - round),
                "round {round}"
            );
            team.reduce(Sum, &mut dst, &mut src, 2).unwrap();
            let total: i64 = (0..n as i64).map(|p| p * 1000 + round).sum();
            assert_eq!(dst.read(0).unwrap(), total, "sum round {round}");
            team.fcollect(&mut dst, &mut src, 1).unwrap();
            for j in 0..n {
                assert_eq!(
                    dst.read(j).unwrap(),
                    team.world_pe(j).unwrap() as i64 * 1000 + round,
                    "fcollect {round}"
                );
            }
            for j in 0..n {
                src.write(j, me * 100 + j as i64 + round).unwrap();
            }
            team.alltoall(&mut dst, &mut src, 1).unwrap();
            let r = team.my_pe() as i64;
            for j in 0..n {
                assert_eq!(
                    dst.read(j).unwrap(),
                    team.world_pe(j).unwrap() as i64 * 100 + r + round,
                    "alltoall {round}"
                );
            }
            if round % 7 == 0 {
                // An eager collective, a sync (an epoch without scratch), then one of the same
                // parity: every PE rewrites its scratch while the others are about to.
                team.reduce(Sum, &mut dst, &mut src, 1).unwrap();
                team.sync().unwrap();
                team.reduce(Max, &mut dst, &mut src, 1).unwrap();
                let want = (0..n as i64).map(|p| p * 100 + round).max().unwrap();
                assert_eq!(dst.read(0).unwrap(), want, "max after sync {round}");
            }
            // Medium payloads: staged exchanges when PEs outnumber cores.
            for j in 0..(40 * n).max(300) {
                src.write(j, me * 7919 + j as i64 * 3 + round).unwrap();
            }
            team.fcollect(&mut dst, &mut src, 40).unwrap();
            for j in 0..n {
                let w = team.world_pe(j).unwrap() as i64;
                for k in 0..40 {
                    assert_eq!(
                        dst.read(j * 40 + k).unwrap(),
                        w * 7919 + k as i64 * 3 + round,
                        "fcollect 40 {round}"
                    );
                }
            }
            team.alltoall(&mut dst, &mut src, 20).unwrap();
            let r = team.my_pe();
            for j in 0..n {
                let w = team.world_pe(j).unwrap() as i64;
                for k in 0..20 {
                    let want = w * 7919 + (r * 20 + k) as i64 * 3 + round;
                    assert_eq!(dst.read(j * 20 + k).unwrap(), want, "alltoall 20 {round}");
                }
            }
            team.reduce(Sum, &mut dst, &mut src, 300).unwrap();
            for k in [0usize, 1, 299] {
                let want: i64 = (0..n as i64).map(|p| p * 7919 + k as i64 * 3 + round).sum();
                assert_eq!(dst.read(k).unwrap(), want, "sum 300 {round}");
            }
        }
        s.barrier_all();
    });
}

/// Alltoalls whose blocks are pushed into the other members' destinations (blocks over 8 KiB,
/// or strided, when PEs outnumber cores) back to back, with values that change every round: a
/// PE that ran ahead must not write into a destination its owner is still checking, and a PE
/// must not return before every block for it has landed.
#[test]
fn pushed_alltoalls_back_to_back() {
    spmd("pushed_alltoalls_back_to_back", &[2, 3, 8], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let world = s.team_world();
        let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
        let block = 1100; // i64 elements: 8800 bytes per block
        let (mut src, mut dst): (SymSlice<i64>, SymSlice<i64>) =
            (s.alloc(3 * block * n).unwrap(), s.alloc(3 * block * n).unwrap());
        let val =
            |w: usize, j: usize, k: usize, round: usize| (((w * 64 + j) * 4096 + k) * 64 + round) as i64;
        for round in 0..60 {
            let team = if round % 3 == 2 { &rev } else { &world };
            let r = team.my_pe();
            let len = if round % 2 == 0 { block } else { block / 2 + 1 };
            set(&src, len * n, |x| val(me, x / len, x % len, round));
            team.alltoall(&mut dst, &mut src, len).unwrap();
            for j in 0..n {
                let w = team.world_pe(j).unwrap();
                for k in [0, 1, len / 2, len - 1] {
                    assert_eq!(
                        dst.read(j * len + k).unwrap(),
                        val(w, r, k, round),
                        "alltoall {len} round {round}"
                    );
                }
            }
            // Strided: element k of block j at 3 * (j * 7 + k) in src, at 2 * (i * 7 + k) in dst.
            set(&src, 3 * 7 * n, |x| val(me, x / 21, x % 21, round + 1));
            team.alltoalls(&mut dst, &mut src, 2, 3, 7).unwrap();
            for i in 0..n {
                let w = team.world_pe(i).unwrap();
                for k in 0..7 {
                    let at = 3 * (r * 7 + k);
                    assert_eq!(
                        dst.read(2 * (i * 7 + k)).unwrap(),
                        val(w, at / 21, at % 21, round + 1),
                        "alltoalls {round}"
                    );
                }
            }
        }
        s.barrier_all();
    });
}

/// An element of 4 104 bytes: a strided alltoall of these across hosts moves one element of
/// each block at a time, straight into its place (no window of packed blocks fits the staging
/// areas on the test layouts).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Page([u64; 513]);
// SAFETY: plain integers, no padding: every bit pattern is a valid value.
#[allow(unsafe_code)]
unsafe impl Symmetric for Page {}

/// Strided alltoalls of large elements (dst 2, sst 3) over the world and the reversed world,
/// with values that change every round; the gaps of the destination stay untouched.
#[test]
fn strided_alltoalls_of_large_elements() {
    spmd("strided_alltoalls_of_large_elements", &[2, 5], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let world = s.team_world();
        let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
        let nelems = 3;
        let (mut src, mut dst): (SymSlice<Page>, SymSlice<Page>) =
            (s.alloc(3 * nelems * n).unwrap(), s.alloc(2 * nelems * n).unwrap());
        let page = |w: usize, x: usize, round: usize| {
            Page(std::array::from_fn(|k| (((w * 1000 + x) * 1000 + k * 7) * 8 + round) as u64))
        };
        let gap = Page([u64::MAX; 513]);
        for round in 0..4 {
            let team = if round % 2 == 1 { &rev } else { &world };
            let r = team.my_pe();
            for x in 0..3 * nelems * n {
                src.write(x, page(me, x, round)).unwrap();
            }
            for x in 0..2 * nelems * n {
                dst.write(x, gap).unwrap();
            }
            team.alltoalls(&mut dst, &mut src, 2, 3, nelems).unwrap();
            for i in 0..n {
                let w = team.world_pe(i).unwrap();
                for k in 0..nelems {
                    let got = dst.read(2 * (i * nelems + k)).unwrap();
                    assert_eq!(
                        got,
                        page(w, 3 * (r * nelems + k), round),
                        "round {round} from {i} element {k}"
                    );
                    assert_eq!(
                        dst.read(2 * (i * nelems + k) + 1).unwrap(),
                        gap,
                        "round {round} gap after {i} {k}"
                    );
                }
            }
        }
        s.barrier_all();
    });
}

/// An element type aligned beyond what the library's scratch buffers give (64 bytes, where
/// the eager scratch copies are 16-byte aligned), with its `Symmetric` contract honoured.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Wide([u64; 8]);
// SAFETY: eight plain integers, no padding: every bit pattern is a valid value.
#[allow(unsafe_code)]
unsafe impl Symmetric for Wide {}

/// Sum of each of the eight words.
#[derive(Clone, Copy, Default)]
struct WideSum;
impl ReduceOp<Wide> for WideSum {
    const NAME: &'static str = "wide_sum";
    fn apply(a: Wide, b: Wide) -> Wide {
        Wide(std::array::from_fn(|j| a.0[j].wrapping_add(b.0[j])))
    }
}

fn wide(w: usize, k: usize) -> Wide {
    Wide(std::array::from_fn(|j| ((w * 1_000_003 + k * 131 + j) % 100_003) as u64))
}

/// Reductions of over-aligned elements at every size class: eager (one element), the central
/// mailbox and the staging area (PEs outnumbering cores), every member reducing all sources
/// (under 16 KiB), and reduce-scatter (from 16 KiB: 256 elements and more). Before, the eager
/// and mailbox payloads were read as `&[Wide]` from 16-byte-aligned copies (a debug assertion
/// of `slice::from_raw_parts`, undefined behaviour in release builds).
fn wide_reductions(s: &Shmem) {
    let (me, n) = (s.my_pe(), s.n_pes());
    let world = s.team_world();
    let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
    let max = 1000;
    let (mut src, mut dst): (SymSlice<Wide>, SymSlice<Wide>) = (s.alloc(max).unwrap(), s.alloc(max).unwrap());
    for (round, count) in [1usize, 2, 3, 7, 100, 255, 256, 300, 1000].into_iter().enumerate() {
        let team = if round % 2 == 1 { &rev } else { &world };
        for k in 0..count {
            src.write(k, wide(me + round, k)).unwrap();
        }
        team.reduce(WideSum, &mut dst, &mut src, count).unwrap();
        for k in 0..count {
            let want = (0..n).map(|p| wide(p + round, k)).reduce(WideSum::apply).unwrap();
            assert_eq!(dst.read(k).unwrap(), want, "count {count} element {k}");
        }
        // In place too.
        team.reduce_in_place(WideSum, &mut src, count).unwrap();
        let want = (0..n).map(|p| wide(p + round, 0)).reduce(WideSum::apply).unwrap();
        assert_eq!(src.read(0).unwrap(), want, "in place, count {count}");
    }
    s.barrier_all();
}

#[test]
fn over_aligned_reductions_with_a_core_per_pe() {
    common::spmd(
        "over_aligned_reductions_with_a_core_per_pe",
        &[2, 3],
        &[("SHMEMX_CORES", "8")],
        wide_reductions,
    );
}

#[test]
fn over_aligned_reductions_oversubscribed() {
    common::spmd(
        "over_aligned_reductions_oversubscribed",
        &[2, 3],
        &[("SHMEMX_CORES", "1")],
        wide_reductions,
    );
}

/// A zero-sized element type (of ordinary and of large alignment): a reduction of 2^20
/// elements is a sync that moves nothing. Before, the eager path sized its accumulator in
/// bytes and indexed it in elements (an index out of range).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Nothing;
// SAFETY: no bytes at all.
#[allow(unsafe_code)]
unsafe impl Symmetric for Nothing {}
#[repr(align(64))]
#[derive(Clone, Copy, Debug, PartialEq)]
struct AlignedNothing;
// SAFETY: no bytes at all.
#[allow(unsafe_code)]
unsafe impl Symmetric for AlignedNothing {}
#[derive(Clone, Copy, Default)]
struct Keep;
impl ReduceOp<Nothing> for Keep {
    const NAME: &'static str = "keep";
    fn apply(a: Nothing, _: Nothing) -> Nothing {
        a
    }
}
impl ReduceOp<AlignedNothing> for Keep {
    const NAME: &'static str = "keep";
    fn apply(a: AlignedNothing, _: AlignedNothing) -> AlignedNothing {
        a
    }
}

fn zst_reductions(s: &Shmem) {
    let world = s.team_world();
    let count = 1 << 20;
    let (mut src, mut dst): (SymSlice<Nothing>, SymSlice<Nothing>) =
        (s.alloc(count).unwrap(), s.alloc(count).unwrap());
    for c in [1, 2, 100, count] {
        world.reduce(Keep, &mut dst, &mut src, c).unwrap();
        world.reduce_in_place(Keep, &mut src, c).unwrap();
    }
    assert_eq!(dst.read(count - 1).unwrap(), Nothing);
    let (mut src, mut dst): (SymSlice<AlignedNothing>, SymSlice<AlignedNothing>) =
        (s.alloc(count).unwrap(), s.alloc(count).unwrap());
    for c in [1, 2, 100, count] {
        world.reduce(Keep, &mut dst, &mut src, c).unwrap();
    }
    // The team is still in step: a reduction of real data works.
    let (mut a, mut b): (SymSlice<u64>, SymSlice<u64>) = (s.alloc(4).unwrap(), s.alloc(4).unwrap());
    a.write(3, s.my_pe() as u64 + 1).unwrap();
    world.reduce(Sum, &mut b, &mut a, 4).unwrap();
    let n = s.n_pes() as u64;
    assert_eq!(b.read(3).unwrap(), n * (n + 1) / 2);
    s.barrier_all();
}

#[test]
fn zero_sized_reductions() {
    common::spmd("zero_sized_reductions", &[1, 2, 3], &[("SHMEMX_CORES", "8")], zst_reductions);
}

#[test]
fn zero_sized_reductions_oversubscribed() {
    common::spmd("zero_sized_reductions_oversubscribed", &[2, 3], &[("SHMEMX_CORES", "1")], zst_reductions);
}

/// Whether this PE's [`PanicOnPe0`] panics.
static PANIC_HERE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A sum that panics on the PE that sets [`PANIC_HERE`].
#[derive(Clone, Copy, Default)]
struct PanicOnPe0;
impl ReduceOp<u64> for PanicOnPe0 {
    const NAME: &'static str = "sum";
    fn apply(a: u64, b: u64) -> u64 {
        if PANIC_HERE.load(std::sync::atomic::Ordering::Relaxed) {
            panic!("the operation gave up on purpose");
        }
        a.wrapping_add(b)
    }
}

/// A `ReduceOp` that panics on PE 0, which catches the panic: the job must end with a report
/// naming the PE, the routine and the panic message, and no PE may return `Ok` with wrong data
/// (before, PE 1 returned `Ok` with 2048 stale elements of the 4096, then the team deadlocked;
/// in the small eager reduction the others may return the right result before the job ends).
/// Reduce-scatter (4096 u64) and the small path (3 u64).
#[test]
fn a_panicking_reduce_op_ends_the_job() {
    fn body(s: &Shmem, count: usize) {
        let me = s.my_pe();
        let world = s.team_world();
        let (mut src, mut dst): (SymSlice<u64>, SymSlice<u64>) =
            (s.alloc(count).unwrap(), s.alloc(count).unwrap());
        for k in 0..count {
            src.write(k, k as u64).unwrap();
        }
        PANIC_HERE.store(me == 0, std::sync::atomic::Ordering::Relaxed);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            world.reduce(PanicOnPe0, &mut dst, &mut src, count)
        }));
        match r {
            Ok(Ok(())) => {
                let n = s.n_pes() as u64;
                let right = (0..count).all(|k| dst.read(k).unwrap() == n * k as u64);
                println!(
                    "PE {me}: reduce returned Ok with {} data",
                    if right { "the right" } else { "STALE" }
                );
            }
            Ok(Err(e)) => println!("PE {me}: reduce returned Err: {e}"),
            Err(_) => println!("PE {me}: caught the panic"),
        }
        world.sync().unwrap();
        println!("PE {me}: the team is still usable");
    }
    type Case = (&'static str, fn(&Shmem));
    let cases: [Case; 2] = [
        ("a_panicking_reduce_op_ends_the_job_large", |s| body(s, 4096)),
        ("a_panicking_reduce_op_ends_the_job_small", |s| body(s, 3)),
    ];
    if let Ok(which) = std::env::var(common::SPMD_CHILD) {
        for (name, f) in cases.into_iter().filter(|&(name, _)| name == which) {
            common::run_if_pe(name, f);
        }
        return;
    }
    let exe = std::env::current_exe().unwrap();
    for (name, _) in cases {
        for (n, cores) in [(2, "8"), (3, "8"), (2, "1")] {
            let args = ["a_panicking_reduce_op_ends_the_job", "--exact", "--nocapture", "--test-threads=1"];
            let env = [(common::SPMD_CHILD, name), ("SHMEMX_CORES", cores)];
            let r = common::run_job(n, &exe, &args, &env, std::time::Duration::from_secs(60));
            let all =
                format!("{name} at {n} PEs ({cores} cores)\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
            assert!(!r.timed_out, "timed out: {all}");
            assert_ne!(r.status, Some(0), "the job should have failed: {all}");
            assert!(!r.stdout.contains("STALE"), "a PE returned Ok with stale data: {all}");
            assert!(!r.stdout.contains("caught the panic"), "the panic reached the caller: {all}");
            assert!(!r.stdout.contains("still usable"), "a PE went on: {all}");
            assert!(
                r.stderr.contains("ferroshmem: PE 0: Team::reduce:")
                    && r.stderr.contains("ReduceOp::apply panicked: the operation gave up on purpose"),
                "no report: {all}"
            );
        }
    }
}
