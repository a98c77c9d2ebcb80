"""ferroshmem under shmem4py (the Python binding, PyPI `shmem4py`): RMA, an atomic, world
collectives, and a team split by stride with a collective and translate_pe inside it. Run by
crates/ferroshmem-launch/tests/shmem4py.rs under oshrun; every PE prints one "ok" line."""
import os

import numpy as np
from shmem4py import shmem

me, n = shmem.my_pe(), shmem.n_pes()
assert "ferroshmem" in shmem.info_get_name(), shmem.info_get_name()

# A put to the right neighbour, then a get from it.
box = shmem.zeros(4, dtype="i")
shmem.barrier_all()
shmem.put(box, np.full(4, me, dtype="i"), (me + 1) % n)
shmem.barrier_all()
assert (box == (me - 1) % n).all(), box
back = np.zeros(4, dtype="i")
shmem.get(back, box, (me + 1) % n)
assert (back == me).all(), back

# Every PE adds its number + 1 to a counter on PE 0.
counter = shmem.zeros(1, dtype="l")
shmem.barrier_all()
shmem.atomic_add(counter, me + 1, 0)
shmem.barrier_all()
if me == 0:
    assert counter[0] == n * (n + 1) // 2, counter

# World collectives.
src = shmem.full(3, me + 1, dtype="i")
dst = shmem.zeros(3, dtype="i")
shmem.reduce(dst, src, op="sum")
assert (dst == n * (n + 1) // 2).all(), dst
root_data = shmem.zeros(3, dtype="i")
if me == 0:
    root_data[:] = [7, 8, 9]
got = shmem.zeros(3, dtype="i")
shmem.broadcast(got, root_data, 0)
assert list(got) == [7, 8, 9], got
blocks = shmem.zeros(n, dtype="i")
mine = shmem.array([me * 10], dtype="i")
shmem.fcollect(blocks, mine)
assert list(blocks) == [10 * i for i in range(n)], blocks

# The PEs of even number as a team: a max reduction and translate_pe inside it. (Symmetric
# allocations are collective over the world team: every PE makes them.)
hi = shmem.zeros(1, dtype="i")
val = shmem.full(1, me, dtype="i")
evens = shmem.TEAM_WORLD.split_strided(0, 2, (n + 1) // 2)
if me % 2 == 0:
    assert evens.my_pe() == me // 2 and evens.n_pes() == (n + 1) // 2
    assert evens.translate_pe(evens.my_pe(), shmem.TEAM_WORLD) == me
    shmem.reduce(hi, val, op="max", team=evens)
    assert hi[0] == 2 * ((n + 1) // 2 - 1), hi
    evens.destroy()
else:
    assert not evens
shmem.barrier_all()
for a in (box, counter, src, dst, root_data, got, blocks, mine, hi, val):
    shmem.free(a)
# One write: the PEs share oshrun's output pipe, and print() may write text and newline apart.
os.write(1, f"ok {me} of {n}\n".encode())
