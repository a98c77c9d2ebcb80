/*
 * pshmem.h: the profiling interface of OpenSHMEM 1.5 for ferroshmem. Every routine of shmem.h
 * also exists as pshmem_NAME (pshmem_putmem, pshmem_ctx_int_put, pshmem_int_atomic_fetch_add,
 * ...; the deprecated start_pes, _my_pe, _num_pes as pstart_pes, p_my_pe, p_num_pes), with the
 * same arguments and the same code: a tool defines its own shmem_putmem, does its measuring,
 * and calls pshmem_putmem to have the library do the work. The program's calls reach the
 * tool's routine; the library's own work never does (it does not call its shmem_ names), and
 * pshmem_ names always reach the library. The routines are declared from the same lines as
 * shmem.h's (ferroshmem_routines.h). The C11 generic forms have no pshmem_ names. Extensions:
 * pshmemx.h.
 */
#ifndef FERROSHMEM_PSHMEM_H
#define FERROSHMEM_PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#undef FERROSHMEM_API
#define FERROSHMEM_API(NAME) p##NAME
#include "ferroshmem_routines.h"
#undef FERROSHMEM_API
#define FERROSHMEM_API(NAME) NAME

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FERROSHMEM_PSHMEM_H */
