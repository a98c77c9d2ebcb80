/*
 * pshmemx.h: the profiling names (pshmemx_NAME) of the routines of shmemx.h, as pshmem.h gives
 * those of shmem.h. Includes shmemx.h and pshmem.h.
 */
#ifndef FERROSHMEM_PSHMEMX_H
#define FERROSHMEM_PSHMEMX_H

#include <shmemx.h>
#include <pshmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#undef FERROSHMEM_API
#define FERROSHMEM_API(NAME) p##NAME
#include "ferroshmemx_routines.h"
#undef FERROSHMEM_API
#define FERROSHMEM_API(NAME) NAME

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FERROSHMEM_PSHMEMX_H */
