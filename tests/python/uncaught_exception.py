"""An uncaught exception on one PE ends the whole job (status 1) instead of leaving its peers
waiting for it, through the one line the README gives (sys.excepthook calling
shmem.global_exit). PE 1 raises before the put that PE 0 waits for; without the line, PE 1's
exit would finalize (a collective) while PE 0 waits for the put: the job would hang. Run by
crates/ferroshmem-launch/tests/shmem4py.rs under oshrun at 2 and 3 PEs."""
import sys

from shmem4py import shmem

sys.excepthook = lambda *exc: (sys.__excepthook__(*exc), shmem.global_exit(1))

me = shmem.my_pe()
flag = shmem.zeros(1, dtype="i")
shmem.barrier_all()
if me == 1:
    raise RuntimeError("PE 1 fails before its put")
if me == 0:
    shmem.wait_until(flag, "eq", 1)  # PE 1's put, which never comes
shmem.barrier_all()
print("PE", me, "passed a barrier that PE 1 never reached")
