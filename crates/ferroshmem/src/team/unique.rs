//! Arbitrary teams (`shmemx_team_init` with a unique id, as NVSHMEM defines it): filled in below.
