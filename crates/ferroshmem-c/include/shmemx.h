/*
 * shmemx.h: ferroshmem extensions to OpenSHMEM 1.5. Includes shmem.h, so a program needs only
 * this header to use both. Every name declared here starts with shmemx_ / SHMEMX_.
 *
 * Sections:
 *   1. Library identification
 *   2. Teams: node teams, arbitrary teams (team_init), split by color, non-blocking creation,
 *      usage
 *   3. The routines, declared in ferroshmemx_routines.h (pshmemx.h declares them again under
 *      their profiling names, pshmemx_...)
 */
#ifndef FERROSHMEM_SHMEMX_H
#define FERROSHMEM_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================================== */
/* 1. Library identification                                                             */
/* ===================================================================================== */

/* Defined when the library is ferroshmem, for programs that use its extensions. */
#define SHMEMX_FERROSHMEM 1

/* ===================================================================================== */
/* 2. Teams: ferroshmem extensions                                                        */
/* ===================================================================================== */

/* Predefined teams as NVSHMEM defines them. On one machine NODE holds every PE and
 * SAME_MYPE_NODE holds the calling PE alone. */
#define SHMEMX_TEAM_NODE ((shmem_team_t)3)
#define SHMEMX_TEAM_SAME_MYPE_NODE ((shmem_team_t)4)

/* Codes returned by failed team creation (the same on every PE); create_test returns them
 * negated. */
#define SHMEMX_TEAM_ERR_INVALID_ARGUMENT 1 /* an argument was invalid on some PE */
#define SHMEMX_TEAM_ERR_NO_SLOT 2          /* some PE has no free team slot (SHMEMX_TEAM_SLOTS) */
#define SHMEMX_TEAM_ERR_MISMATCH 3         /* checked mode: the PEs did not make the same call */

/* Arbitrary teams (NVSHMEM's nvshmemx_team_init). A root draws a unique id and hands it to the
 * members out of band (a put, a broadcast); each member calls shmemx_team_init with the id,
 * the team size and its own index (any subset of SHMEM_TEAM_WORLD, any order). Several
 * creations with different ids may be in flight at once. NVSHMEM passes the id in the config;
 * shmem_team_config_t must stay the 1.5 structure, so team_init takes shmemx_team_config_t,
 * which extends it with the id: set SHMEMX_TEAM_CONFIG_UNIQUEID (required) and optionally
 * SHMEM_TEAM_NUM_CONTEXTS in config_mask. */
typedef uint64_t shmemx_team_uniqueid_t;
#define SHMEMX_TEAM_CONFIG_UNIQUEID (1L << 1)
typedef struct {
    int num_contexts;
    shmemx_team_uniqueid_t uniqueid;
} shmemx_team_config_t;


/* Split by color and key (like MPI_Comm_split). Every PE of the parent calls it; the PEs that
 * pass the same color (>= 0) form one team, ordered by key and then by parent PE number; a PE
 * that passes SHMEMX_COLOR_UNDEFINED gets SHMEM_TEAM_INVALID. One collective call makes all
 * the (disjoint) teams, with one agreement; failures are as for shmem_team_split_strided (the
 * same code on every PE, no team made anywhere). A negative color other than
 * SHMEMX_COLOR_UNDEFINED is an invalid argument. */
#define SHMEMX_COLOR_UNDEFINED (-1)
/* shmemx_team_split_color(parent_team, color, key, config, config_mask, new_team) and
 * shmemx_team_split_color_nb(..., req): section 3. */

/* Non-blocking creation (UCC's post/test). Each _nb routine starts the creation and returns 0
 * (nonzero, with *req == SHMEMX_TEAM_REQUEST_NULL and INVALID outputs, only when it cannot
 * start: INVALID parent, team_init without a unique id). The output team(s) read
 * SHMEM_TEAM_INVALID until the request completes and are written then, so they must stay
 * valid until then. Argument errors surface at completion, identically on every PE.
 * Complete with shmemx_team_create_test (SHMEMX_TEAM_CREATE_DONE, _IN_PROGRESS, or a negated
 * SHMEMX_TEAM_ERR_* code) or shmemx_team_create_wait (0 or the code); the request is gone once
 * complete. Other work may run meanwhile, including collectives on other teams; the parent
 * team may not be used for collectives until the request completes. Mixing a blocking and a
 * non-blocking creation in one collective call counts as a mismatch in checked mode. */
typedef struct ferroshmem_team_request *shmemx_team_request_t;
#define SHMEMX_TEAM_REQUEST_NULL ((shmemx_team_request_t)0)
#define SHMEMX_TEAM_CREATE_DONE 0
#define SHMEMX_TEAM_CREATE_IN_PROGRESS 1


/* Team usage on the calling PE (also printed at init by PE 0 with SHMEM_INFO=1). A PE can
 * belong to `capacity` teams at once (SHMEMX_TEAM_SLOTS, default 8192); each costs
 * shared_bytes_per_team of shared memory (its synchronisation slot) and
 * private_bytes_per_team of process memory, plus 80 KiB of staging address space that becomes
 * memory only as collectives of medium payloads use it when PEs outnumber cores. Returns 0
 * (nonzero for a NULL info). */
typedef struct {
    long teams_in_use; /* teams this PE belongs to now, predefined ones included */
    long capacity;
    long bytes_per_team; /* shared + private */
    long shared_bytes_per_team;
    long private_bytes_per_team;
} shmemx_team_info_t;

/* shmemx_pcontrol_level(): the level last given to shmem_pcontrol (1 until a program sets
 * one), for profiling tools. */

/* ===================================================================================== */
/* 3. Routines (named through FERROSHMEM_API, see shmem.h)                                */
/* ===================================================================================== */

#include "ferroshmemx_routines.h"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FERROSHMEM_SHMEMX_H */
